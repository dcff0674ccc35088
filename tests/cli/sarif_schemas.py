"""The SARIF 2.1.0 schemas the CLI tests validate mpa-check's SARIF against: the project's own
(sarif-2.1.0-subset.schema.json, what code scanning reads) and OASIS's full one, which
.ci/sarif-schema fetches (pinned by SHA-512) and CMake hands over as MPA_SARIF_SCHEMA."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def sarif_validators(failure):
    """[(path, validator)] for both schemas; raises `failure` (the caller's exception type)
    when python3-jsonschema or OASIS's schema is missing."""
    try:
        import jsonschema
    except ImportError:
        raise failure("python3-jsonschema is needed (apt-get install python3-jsonschema; .ci/setup installs it)")
    full = os.environ.get("MPA_SARIF_SCHEMA", "")
    if not os.path.isfile(full):
        raise failure(f"OASIS's SARIF 2.1.0 schema is not at {full!r} (MPA_SARIF_SCHEMA): run "
                      "`bash .ci/setup` (its .ci/sarif-schema fetches it), then configure again")
    validators = []
    for path in (os.path.join(HERE, "sarif-2.1.0-subset.schema.json"), full):
        with open(path) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validators.append((path, cls(schema, format_checker=jsonschema.FormatChecker())))
    return validators
