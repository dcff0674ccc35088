// The one escaping function of the HTML report: everything that comes from a capture (file
// names, messages, private data, stack names) goes through it before it reaches the page.
#pragma once

#include <string>
#include <string_view>

namespace mpa::report {

// `text` as HTML/XML character data or a quoted attribute value: & < > " ' as character
// references; octets that are not well-formed UTF-8, and control characters other than
// tab and newline, as U+FFFD (so the page stays valid UTF-8 and nothing is markup).
void append_escaped(std::string& out, std::string_view text);
std::string html_escape(std::string_view text);

}  // namespace mpa::report
