#!/usr/bin/env python3
"""tshark as the oracle for the DDP/RDMAP fields mpa-check reads: Wireshark's built-in
iwarp_ddp_rdmap dissector (through the real tshark, our plugin disabled) decodes every FPDU
of the captures given, and what mpa-check says of them must agree with that decode.

mpa-check prints no DDP/RDMAP field of an FPDU (`--list-fpdus` gives frame, direction,
sequence number, ULPDU_Length, CRC, markers); what it exposes of them is compared:

  - per FPDU: the frame completing it and its ULPDU_Length, against iwarp_mpa's (the
    alignment every comparison below rests on);
  - per direction: the FPDUs by RDMAP opcode (`rdmap_opcodes`) and the Terminates, against
    iwarp_rdma.opcode (and iwarp_ddp.tagged_flag for Terminates, untagged ones);
  - per direction: the DDP Stream findings (ddp.reserved-nonzero, ddp.version-changed,
    ddp.version-mismatch, ddp.queue-invalid, ddp.msn-invalid, ddp.message-unfinished,
    ddp.segments-out-of-order, ddp.stag-changed, rdmap.opcode-invalid,
    rdmap.opcode-misplaced, rdmap.reserved-nonzero, rdmap.after-terminate), each named at the
    frame of its first FPDU in that direction, against the same rules (RFC 5040 4.1, 5;
    RFC 5041 4, 5, 7) worked out here from tshark's fields: iwarp_ddp.tagged_flag, last_flag,
    rsvd, dv, stag, tagged_offset, qn, msn, mo; iwarp_rdma.version, rsv, opcode, reserved
    (the Invalidate STag field of the messages that invalidate nothing), inval_stag.

A direction whose FPDUs tshark frames otherwise (markers: the built-in mishandles them), or
that holds an FPDU whose CRC failed, or a connection with octets missing, is listed as exempt,
not compared.

  tshark_ddp.py MPA_CHECK CAPTURE...
"""
import collections
import json
import subprocess
import sys

STREAM_IDS = {
    "ddp.reserved-nonzero", "ddp.version-changed", "ddp.version-mismatch", "ddp.queue-invalid",
    "ddp.msn-invalid", "ddp.message-unfinished", "ddp.segments-out-of-order", "ddp.stag-changed",
    "rdmap.opcode-invalid", "rdmap.opcode-misplaced", "rdmap.reserved-nonzero",
    "rdmap.after-terminate", "ddp.tagged-offsets-inconsistent",
}
OPCODE_NAMES = [
    "rdma_write", "rdma_read_request", "rdma_read_response", "send", "send_invalidate", "send_se",
    "send_se_invalidate", "terminate", "immediate_data", "immediate_data_se", "atomic_request",
    "atomic_response", "opcode_12", "opcode_13", "opcode_14", "opcode_15",
]
FIELDS = ("tagged", "last", "ddp rsvd", "DV", "STag", "TO", "QN", "MSN", "MO", "RDMAP version",
          "RDMAP rsvd", "opcode", "Invalidate STag")


def flow_key(src, dst):
    return (src, dst)


def mpa_check_report(mpa_check, capture):
    proc = subprocess.run([mpa_check, "--format", "json", "--list-fpdus", "--fold", "100000",
                           capture], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"{capture}: mpa-check exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)["captures"][0]


def as_list(x):
    return x if isinstance(x, list) else [x]


def number(value):
    return int(value, 0) if isinstance(value, str) else int(value)


def ddp_fields(ddp_rdmap):
    """One FPDU's DDP/RDMAP fields as tshark decoded them."""
    ddp = ddp_rdmap.get("iwarp_ddp", {})
    rdma = ddp_rdmap.get("iwarp_rdma", {})
    control = ddp.get("iwarp_ddp.control_field", {})
    f = {"tagged": control.get("iwarp_ddp.tagged_flag") == "1",
         "last": control.get("iwarp_ddp.last_flag") == "1",
         "rsvd": number(control.get("iwarp_ddp.rsvd", "0")),
         "dv": number(control.get("iwarp_ddp.dv", "0"))}
    tagged = ddp.get("iwarp_ddp.tagged", {})
    untagged = ddp.get("iwarp_ddp.untagged", {})
    f["stag"] = number(tagged.get("iwarp_ddp.stag", "0"))
    f["to"] = number(tagged.get("iwarp_ddp.tagged_offset", "0"))
    f["qn"] = number(untagged.get("iwarp_ddp.qn", "0"))
    f["msn"] = number(untagged.get("iwarp_ddp.msn", "0"))
    f["mo"] = number(untagged.get("iwarp_ddp.mo", "0"))
    rc = rdma.get("iwarp_rdma.control_field", {})
    f["rv"] = number(rc.get("iwarp_rdma.version", "0"))
    f["rsv"] = number(rc.get("iwarp_rdma.rsv", "0"))
    f["opcode"] = number(rc.get("iwarp_rdma.opcode", "0"))
    reserved = rdma.get("iwarp_rdma.reserved", "")
    inval = rdma.get("iwarp_rdma.inval_stag")
    f["inval"] = number(inval) if inval is not None else (
        int(reserved.replace(":", ""), 16) if reserved else 0)
    f["have_rdma"] = "iwarp_rdma.control_field" in rdma
    terminate = rdma.get("iwarp_rdma.terminate", {})
    # RFC 5040 4.8: the 13 Reserved bits after the Terminate Control field.
    f["term_rsvd"] = number(terminate.get("iwarp_rdma.term_rsvd", "0"))
    hdrct = terminate.get("iwarp_rdma.term_ctrl", {}).get("iwarp_rdma.term_hdrct", {})
    f["term_d"] = hdrct.get("iwarp_rdma.hdrct_d") == "1"
    f["term_r"] = hdrct.get("iwarp_rdma.hdrct_r") == "1"
    f["term_m"] = hdrct.get("iwarp_rdma.term_hdrct_m") == "1"
    # Linux siw's C bitfields put M, D and R at the low end of the Terminate Control's third
    # octet, where RFC 5040's reading finds Reserved bits (8-12) and no M, D or R: read so, a
    # Terminate is siw's, and its Reserved bits are not RFC 5040's to judge.
    if not (f["term_m"] or f["term_d"] or f["term_r"]) and f["term_rsvd"] >> 8:
        f["term_rsvd"] = 0
    return f


def tshark_fpdus(capture):
    """Per flow (src, dst): the FPDUs iwarp_mpa found, in order: (frame, ULPDU_Length, fields
    of iwarp_ddp_rdmap or None); and per flow the TCP sequence number (raw) just after its first
    MPA Request or Reply (20 octets and PD_Length of private data, RFC 5044 7.1)."""
    proc = subprocess.run(
        ["tshark", "-n", "--disable-protocol", "mpa", "-r", capture,
         "-o", "tcp.desegment_tcp_streams:TRUE", "-Y",
         "iwarp_mpa.ulpdulength || iwarp_mpa.key.req || iwarp_mpa.key.rep", "-T", "json",
         "--no-duplicate-keys", "-J", "frame ip ipv6 tcp iwarp_mpa iwarp_ddp_rdmap"],
        capture_output=True, text=True, check=True)
    rows = collections.defaultdict(list)
    startup_ends = {}
    for packet in json.loads(proc.stdout or "[]"):
        layers = packet["_source"]["layers"]
        frame = number(layers["frame"]["frame.number"])
        ip = layers.get("ip") or layers.get("ipv6")
        ip = as_list(ip)[-1]
        tcp = as_list(layers["tcp"])[-1]
        if "ip.src" in ip:
            src, dst = f"{ip['ip.src']}:{tcp['tcp.srcport']}", f"{ip['ip.dst']}:{tcp['tcp.dstport']}"
        else:
            src = f"[{ip['ipv6.src']}]:{tcp['tcp.srcport']}"
            dst = f"[{ip['ipv6.dst']}]:{tcp['tcp.dstport']}"
        mpas = as_list(layers.get("iwarp_mpa", []))
        ddps = as_list(layers.get("iwarp_ddp_rdmap", []))
        fpdus = []
        for mpa in mpas:
            startup = mpa.get("iwarp_mpa.req") or mpa.get("iwarp_mpa.rep")
            if isinstance(startup, dict) and "iwarp_mpa.pdlength" in startup:
                end = number(tcp["tcp.seq_raw"]) + 20 + number(startup["iwarp_mpa.pdlength"])
                startup_ends.setdefault((src, dst), end % 2**32)
            for fpdu in as_list(mpa.get("iwarp_mpa.fpdu", [])):
                length = fpdu.get("iwarp_mpa.ulpdulength")
                if length is not None:
                    fpdus.append(number(as_list(length)[0]))
        for k, length in enumerate(fpdus):
            fields = ddp_fields(ddps[k]) if k < len(ddps) and len(ddps) == len(fpdus) else None
            rows[(src, dst)].append((frame, length, fields))
    return rows, startup_ends


def needs(f):
    """The octets a ULPDU needs for the DDP header and the RDMAP header its opcode announces
    (RFC 5041 4, RFC 5040 4.4 and 4.8, RFC 7306)."""
    if f["tagged"]:
        return 14
    extra = {1: 28, 10: 28, 11: 12}.get(f["opcode"], 0)
    if f["opcode"] == 7:
        extra = 4 + (16 if f["term_d"] else 0) + (28 if f["term_r"] else 0)
    return 18 + extra


class Stream:
    """One direction's DDP Stream rules over tshark's fields (RFC 5041, RFC 5040): the
    first FPDU breaking each, by frame."""

    def __init__(self, from_start, revision):
        self.queues = [{"msn": 0, "next_mo": 0, "known": from_start, "open": False}
                       for _ in range(5)]
        self.tagged = None  # (stag, opcode, next_to) of the open tagged message
        self.tagged_known = from_start  # a Last segment seen since the start or a loss
        self.message = None  # the tagged message's payloads [TO, end), octets, whole, judged
        self.dv = None
        self.terminated = False
        self.revision = revision
        self.first = {}

    def lose(self):
        for q in self.queues:
            q.update(msn=0, next_mo=0, known=False, open=False)
        self.tagged = None
        self.tagged_known = False
        self.message = None

    def say(self, what, frame):
        self.first.setdefault(what, frame)

    def segment(self, frame, length, f):
        if self.terminated:
            self.say("rdmap.after-terminate", frame)
        if f["rsvd"]:
            self.say("ddp.reserved-nonzero", frame)
        if self.dv is None:
            self.dv = f["dv"]
        elif f["dv"] != self.dv:
            self.say("ddp.version-changed", frame)
        # RFC 5044 Appendix C: one version for both, the revision's (0 for Rev 0, 1 after); not
        # knowing the revision, 0 or 1.
        expected = None if self.revision is None else (0 if self.revision == 0 else 1)
        allowed = (0, 1) if expected is None else (expected,)
        if f["dv"] not in allowed or f["rv"] not in allowed or f["dv"] != f["rv"]:
            self.say("ddp.version-mismatch", frame)
        op, tagged = f["opcode"], f["tagged"]
        if f["rsv"]:
            self.say("rdmap.reserved-nonzero", frame)
        elif not tagged and op in (1, 3, 5, 7) and f["inval"]:
            self.say("rdmap.reserved-nonzero", frame)
        elif not tagged and op == 7 and f["term_rsvd"]:
            self.say("rdmap.reserved-nonzero", frame)
        header = 14 if tagged else 18
        payload = max(0, length - header)
        if op > 11:
            self.say("rdmap.opcode-invalid", frame)
        else:
            queue_of = {3: 0, 4: 0, 5: 0, 6: 0, 1: 1, 7: 2}.get(op)
            if op <= 7 and tagged != (op in (0, 2)):
                self.say("rdmap.opcode-misplaced", frame)
            elif not tagged and f["qn"] < 5 and queue_of is not None and f["qn"] != queue_of:
                self.say("rdmap.opcode-misplaced", frame)
        if tagged:
            self.tagged_segment(frame, f, payload)
        else:
            self.untagged_segment(frame, f, payload)
        if not tagged and op == 7:
            self.terminated = True

    def untagged_segment(self, frame, f, payload):
        if f["qn"] >= 5:
            self.say("ddp.queue-invalid", frame)
            return
        q = self.queues[f["qn"]]
        first = True
        if q["open"] and f["msn"] == q["msn"]:
            first = False
            if f["mo"] != q["next_mo"]:
                self.say("ddp.segments-out-of-order", frame)
        elif q["open"] and f["msn"] == (q["msn"] + 1) % 2**32:
            self.say("ddp.message-unfinished", frame)
        elif q["known"] and f["msn"] != (q["msn"] + 1) % 2**32:
            self.say("ddp.msn-invalid", frame)
        if first and q["known"] and f["mo"] != 0:
            self.say("ddp.segments-out-of-order", frame)
        q.update(msn=f["msn"], known=True, open=not f["last"], next_mo=f["mo"] + payload)

    def tagged_segment(self, frame, f, payload):
        same_message = False
        if self.tagged is not None:
            stag, opcode, next_to = self.tagged
            same_stag = f["stag"] == stag and f["opcode"] == opcode
            same_to = f["to"] == next_to
            same_message = (same_stag or (same_to and f["opcode"] == opcode)
                            or (self.message["octets"] == 0 and payload == 0))
            if same_stag and not same_to:
                self.say("ddp.segments-out-of-order", frame)
            elif not same_stag and same_to and f["opcode"] == opcode:
                self.say("ddp.stag-changed", frame)
            elif not same_stag:
                self.say("ddp.message-unfinished", frame)
        self.tile(frame, f, payload, same_message)
        self.tagged = None if f["last"] else (f["stag"], f["opcode"], f["to"] + payload)

    def tile(self, frame, f, payload, same_message):
        """RFC 5041 5.2: a tagged message's payloads tile one interval, in any order; judged
        while its pieces make at most four runs."""
        if not same_message:
            self.message = {"pieces": [], "octets": 0, "whole": self.tagged_known,
                            "judged": True}
        m = self.message
        m["octets"] += payload
        lo, hi = f["to"], f["to"] + payload
        if payload and hi >= 2**64:
            m["judged"] = False
        if payload and m["judged"]:
            if any(lo < b and hi > a for a, b in m["pieces"]):
                self.say("ddp.tagged-offsets-inconsistent", frame)
                m["judged"] = False
            else:
                m["pieces"].append((lo, hi))
                if runs_of(m["pieces"]) > 4:
                    m["judged"] = False
        if f["last"]:
            if m["whole"] and m["judged"] and runs_of(m["pieces"]) > 1:
                self.say("ddp.tagged-offsets-inconsistent", frame)
            self.tagged_known = True


def runs_of(pieces):
    """How many runs of octets the pieces [a, b), none overlapping, make."""
    runs, end = 0, None
    for a, b in sorted(pieces):
        if a != end:
            runs += 1
        end = b
    return runs


def compare_direction(name, conn, direction, ours, theirs, report, startup_end):
    """Compares one direction; returns (FPDUs compared, disagreements) or None if exempt."""
    if [(f["frame"], f["ulpdu_length"]) for f in ours] != [(t[0], t[1]) for t in theirs]:
        return None, "tshark's iwarp_mpa frames its FPDUs otherwise"
    if any(f["crc"] == "bad" for f in ours):
        return None, "an FPDU whose CRC failed (the DDP Stream loses its place)"
    if any(t[2] is None for t in theirs):
        return None, "an FPDU iwarp_ddp_rdmap did not decode"
    problems = []
    # The opcode histogram and the Terminates.
    counts = collections.Counter(
        OPCODE_NAMES[t[2]["opcode"] & 0x0F] for t in theirs
        if t[1] >= (14 if t[2]["tagged"] else 18) and t[2]["have_rdma"])
    stats = conn["directions"][direction]
    if dict(counts) != {k: v for k, v in stats.get("rdmap_opcodes", {}).items() if v}:
        problems.append(f"RDMAP opcodes: mpa-check {stats.get('rdmap_opcodes')}, tshark {dict(counts)}")
    terminates = sum(1 for t in theirs if t[1] >= 18 and not t[2]["tagged"] and t[2]["opcode"] == 7)
    if terminates != stats.get("terminates", 0):
        problems.append(f"Terminates: mpa-check {stats.get('terminates')}, tshark {terminates}")
    # The DDP Stream's findings. From the start (each queue's first MSN 1) in a direction whose
    # first FPDU follows its sender's own startup frame at once (a marker may stand between).
    follows = startup_end is not None and (ours[0]["tcp_seq"] - startup_end) % 2**32 in (0, 4)
    stream = Stream(conn["startup_seen"] and follows and bool(theirs),
                    conn.get("revision") if conn["startup_seen"] else None)
    for frame, length, fields in theirs:
        if length == 0:
            continue
        if length >= needs(fields):
            stream.segment(frame, length, fields)
        else:
            stream.lose()  # what the segment held is unknown: RFC 5041 7.2's receiver drops it
    found = {}
    for f in conn["findings"]:
        if f["direction"] == direction and f["id"] in STREAM_IDS:
            found.setdefault(f["id"], f["frame"])
    if found != stream.first:
        for what in sorted(set(found) | set(stream.first)):
            if found.get(what) != stream.first.get(what):
                problems.append(f"{what}: mpa-check at frame {found.get(what)}, "
                                f"tshark's fields at frame {stream.first.get(what)}")
    return (len(ours), problems), None


def main():
    mpa_check, captures = sys.argv[1], sys.argv[2:]
    total_fpdus, directions, failures, exempt = 0, 0, [], 0
    for capture in captures:
        report = mpa_check_report(mpa_check, capture)
        # tshark only where a direction has FPDUs to compare (a tshark run is most of this
        # test's time, and most fault captures end in their startup).
        if not any(conn.get("fpdus") for conn in report["connections"]):
            continue
        theirs, ends = tshark_fpdus(capture)
        for conn in report["connections"]:
            missing = {"capture.gap", "capture.truncated", "capture.resynchronised"}
            for direction, (src, dst) in (("initiator", (conn["initiator"], conn["responder"])),
                                          ("responder", (conn["responder"], conn["initiator"]))):
                ours = [f for f in conn.get("fpdus", []) if f["direction"] == direction]
                if not ours:
                    continue
                where = f"{capture} connection {conn['id']} {direction}"
                if any(f["id"] in missing for f in conn["findings"]) or report["findings"]:
                    print(f"exempt  {where}: octets missing")
                    exempt += 1
                    continue
                result, why = compare_direction(where, conn, direction, ours,
                                                theirs.get(flow_key(src, dst), []), report,
                                                ends.get(flow_key(src, dst)))
                if result is None:
                    print(f"exempt  {where}: {why}")
                    exempt += 1
                    continue
                n, problems = result
                total_fpdus += n
                directions += 1
                if problems:
                    failures.extend(f"{where}: {p}" for p in problems)
                    print(f"DIFFERS {where}: {len(problems)} disagreements")
                else:
                    print(f"agrees  {where}: {n} FPDUs")
    print(f"{directions} directions, {total_fpdus} FPDUs compared field by field "
          f"({', '.join(FIELDS)}); {exempt} exempt")
    if failures:
        sys.exit("\n".join(failures))
    if directions == 0:
        sys.exit("no direction was eligible")


if __name__ == "__main__":
    main()
