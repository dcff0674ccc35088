// Fuzz target: the HTML and JUnit XML reports' one escaping function (analyzer/html_escape.h),
// judged by a real XML parser (expat). The fuzzer's bytes are text from a capture (a file
// name, private data, a message). Escaped as character data and as an attribute value inside
// a small XML document, the document must be well-formed for every input; the text expat
// reads back must escape to the same octets again (nothing is lost or added on the way); and
// text that needed no replacement (well-formed UTF-8, no control character) must come back
// exactly as it was, in the attribute (tabs and newlines included) as in the element.
#include <expat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "html_escape.h"

namespace {

struct Parsed {
  std::string attribute;
  std::string text;
};

void XMLCALL on_start(void* user, const XML_Char* name, const XML_Char** attributes) {
  auto* parsed = static_cast<Parsed*>(user);
  if (std::string_view(name) != "a") return;
  for (int i = 0; attributes[i] != nullptr; i += 2) {
    if (std::string_view(attributes[i]) == "v") parsed->attribute = attributes[i + 1];
  }
}

void XMLCALL on_text(void* user, const XML_Char* text, int length) {
  static_cast<Parsed*>(user)->text.append(text, static_cast<std::size_t>(length));
}

// Reads `document` with expat; false when it is not well-formed.
bool parse(const std::string& document, Parsed& parsed) {
  XML_Parser parser = XML_ParserCreate("UTF-8");
  XML_SetUserData(parser, &parsed);
  XML_SetStartElementHandler(parser, on_start);
  XML_SetCharacterDataHandler(parser, on_text);
  const bool ok =
      XML_Parse(parser, document.data(), static_cast<int>(document.size()), 1) == XML_STATUS_OK;
  XML_ParserFree(parser);
  return ok;
}

std::size_t replacements(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t at = text.find("\xEF\xBF\xBD"); at != std::string_view::npos;
       at = text.find("\xEF\xBF\xBD", at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using mpa::report::html_escape;
  using mpa::report::xml_attribute_escape;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string as_text = html_escape(input);
  const std::string as_attribute = xml_attribute_escape(input);
  const std::string document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a v=\"" +
                               as_attribute + "\">" + as_text + "</a>";
  Parsed parsed;
  MPA_FUZZ_CHECK(parse(document, parsed), "escaped text is not well-formed XML");
  MPA_FUZZ_CHECK(html_escape(parsed.text) == as_text,
                 "character data read back escapes differently");
  MPA_FUZZ_CHECK(xml_attribute_escape(parsed.attribute) == as_attribute,
                 "attribute value read back escapes differently");
  if (replacements(as_text) == replacements(input)) {
    MPA_FUZZ_CHECK(parsed.text == input, "text that needed no replacement changed");
    MPA_FUZZ_CHECK(parsed.attribute == input, "attribute value that needed no replacement changed");
  }
  return 0;
}
