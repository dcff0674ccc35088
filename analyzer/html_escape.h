// The one escaping function of the HTML and JUnit XML reports: everything that comes from a
// capture (file names, messages, private data, stack names) goes through it before it
// reaches the page or the XML file.
#pragma once

#include <string>
#include <string_view>

namespace mpa::report {

// `text` as HTML/XML character data or a quoted attribute value: & < > " ' as character
// references; octets that are not well-formed UTF-8, control characters other than tab and
// newline, and the noncharacters U+FFFE and U+FFFF (not XML characters), as U+FFFD (so the
// page stays valid UTF-8 and nothing is markup). For an XML attribute value, tab and newline
// too become character references (an XML parser reads them as spaces otherwise).
enum class EscapeAs : bool { Text, XmlAttribute };
void append_escaped(std::string& out, std::string_view text, EscapeAs as = EscapeAs::Text);
std::string html_escape(std::string_view text);
std::string xml_attribute_escape(std::string_view text);

}  // namespace mpa::report
