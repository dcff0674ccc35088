// See html_escape.h.
#include "html_escape.h"

#include <cstdint>

namespace mpa::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlongs, no
// surrogates, at most U+10FFFF), or 0.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t c = at(i);
  std::size_t n;
  std::uint8_t lo = 0x80, hi = 0xBF;  // bounds of the second octet
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

void append_escaped(std::string& out, std::string_view text, EscapeAs as) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<std::uint8_t>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        case '\t':
          out += as == EscapeAs::XmlAttribute ? std::string_view("&#9;") : "\t";
          break;
        case '\n':
          out += as == EscapeAs::XmlAttribute ? std::string_view("&#10;") : "\n";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            out += kReplacement;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    // C1 controls (U+0080..U+009F) are not text either, nor U+FFFE and U+FFFF (EF BF BE/BF).
    const bool c1_control = n == 2 && c == 0xC2 && static_cast<std::uint8_t>(text[i + 1]) < 0xA0;
    const bool nonchar = n == 3 && c == 0xEF && static_cast<std::uint8_t>(text[i + 1]) == 0xBF &&
                         static_cast<std::uint8_t>(text[i + 2]) >= 0xBE;
    if (c1_control || nonchar) {
      out += kReplacement;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  append_escaped(out, text);
  return out;
}

std::string xml_attribute_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  append_escaped(out, text, EscapeAs::XmlAttribute);
  return out;
}

}  // namespace mpa::report
