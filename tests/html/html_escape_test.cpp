// The HTML and JUnit reports' one escaping function (analyzer/html_escape.h): what comes
// from a capture never becomes markup, and the page stays valid UTF-8 (and XML).
#include "html_escape.h"

#include <gtest/gtest.h>

#include <string>

#include "html_trace.h"

namespace mpa::report {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(HtmlEscape, MarkupCharactersBecomeReferences) {
  EXPECT_EQ(html_escape("<script>alert(\"x\")</script>"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  EXPECT_EQ(html_escape("a & b 'c'"), "a &amp; b &#39;c&#39;");
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // escaped again, never taken as a reference
}

TEST(HtmlEscape, PlainTextAndWellFormedUtf8StayAsTheyAre) {
  EXPECT_EQ(html_escape("MPA ID Req Frame"), "MPA ID Req Frame");
  EXPECT_EQ(html_escape("tab\tnewline\n"), "tab\tnewline\n");
  EXPECT_EQ(html_escape("\xC3\xA9t\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x93\xA6"),
            "\xC3\xA9t\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x93\xA6");
}

TEST(HtmlEscape, OctetsThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(html_escape("\xFF\xFE"), kFffd + kFffd);
  EXPECT_EQ(html_escape("a\xC3("), "a" + kFffd + "(");            // truncated sequence
  EXPECT_EQ(html_escape("\xC0\xBC"), kFffd + kFffd);              // overlong '<'
  EXPECT_EQ(html_escape("\xE0\x80\xBC"), kFffd + kFffd + kFffd);  // overlong '<', 3 octets
  EXPECT_EQ(html_escape("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // a surrogate
  EXPECT_EQ(html_escape("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // beyond U+10FFFF
  EXPECT_EQ(html_escape("x\xE2\x86"), "x" + kFffd + kFffd);                   // cut at the end
}

TEST(HtmlEscape, ControlCharactersBecomeReplacementCharacters) {
  EXPECT_EQ(html_escape(std::string("a\0b", 3)), "a" + kFffd + "b");
  EXPECT_EQ(html_escape("\x1B[31m"), kFffd + "[31m");
  EXPECT_EQ(html_escape("\x7F"), kFffd);
  EXPECT_EQ(html_escape("\xC2\x85"), kFffd);       // C1 control NEL
  EXPECT_EQ(html_escape("\xC2\xA0"), "\xC2\xA0");  // no-break space is text
}

// XML 1.0 has no U+FFFE or U+FFFF (the JUnit report shares this function).
TEST(HtmlEscape, NoncharactersThatXmlForbidsBecomeReplacementCharacters) {
  EXPECT_EQ(html_escape("a\xEF\xBF\xBE"
                        "b\xEF\xBF\xBF"),
            "a" + kFffd + "b" + kFffd);
  EXPECT_EQ(html_escape("\xEF\xBF\xBD\xEF\xBF\xBC"),
            kFffd + "\xEF\xBF\xBC");  // U+FFFD, U+FFFC stay
}

// In an XML attribute a raw tab or newline is read back as a space: they become references.
TEST(HtmlEscape, XmlAttributeValuesKeepTabsAndNewlinesAsReferences) {
  EXPECT_EQ(xml_attribute_escape("a\tb\nc<\"&"), "a&#9;b&#10;c&lt;&quot;&amp;");
  EXPECT_EQ(xml_attribute_escape("x\ry"), "x" + kFffd + "y");
}

TEST(HtmlEscape, EveryOctetValueGivesValidUtf8WithoutMarkup) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string out = html_escape(all);
  EXPECT_EQ(out.find('<'), std::string::npos);
  EXPECT_EQ(out.find('>'), std::string::npos);
  EXPECT_EQ(out.find('"'), std::string::npos);
  EXPECT_EQ(out.find('\''), std::string::npos);
  // Every '&' starts one of the five references.
  for (std::size_t i = out.find('&'); i != std::string::npos; i = out.find('&', i + 1)) {
    const std::string rest = out.substr(i, 6);
    EXPECT_TRUE(rest.starts_with("&amp;") || rest.starts_with("&lt;") || rest.starts_with("&gt;") ||
                rest.starts_with("&quot;") || rest.starts_with("&#39;"))
        << rest;
  }
}

// The time bins of the charts: bounded, nothing lost when the bin width doubles.
TEST(HtmlTimeBins, WidthDoublesAndTotalsStayWhenTimeRunsPastTheLastBin) {
  TimeBins bins;
  bins.origin_ns = 1000;
  bins.add(1000, 5);                      // first bin
  bins.add(1000 + 3 * bins.width_ns, 7);  // fourth bin
  const std::uint64_t width = bins.width_ns;
  bins.add(1000 + kTimeBins * width * 3, 11);  // far beyond: the width doubles twice
  EXPECT_EQ(bins.width_ns, width * 4);
  std::uint64_t total = 0;
  for (std::uint64_t v : bins.values) total += v;
  EXPECT_EQ(total, 23u);
  EXPECT_EQ(bins.values[0], 12u);  // bins 0..3 of the first width are bin 0 now
  EXPECT_EQ(bins.values[(kTimeBins * 3) / 4], 11u);
  bins.add(0, 1);  // before the origin: the first bin
  EXPECT_EQ(bins.values[0], 13u);
}

}  // namespace
}  // namespace mpa::report
