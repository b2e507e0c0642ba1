// The HTML report: escaping, and what a page made from a small report holds (its browser checks
// are in test/e2e/html_test.cc).
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/html_report.h"
#include "ppe/formatter/instructions.h"

#include "profile_builder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>

namespace ppe::formatter {
namespace {

    using testing::profileWith;

    TEST(HtmlEscape, MarkupCharactersBecomeEntities)
    {
        EXPECT_EQ(htmlEscape("if (a < b && c > d) s = \"x\" + 'y';"),
            "if (a &lt; b &amp;&amp; c &gt; d) s = &quot;x&quot; + &#39;y&#39;;");
        EXPECT_EQ(
            htmlEscape("</script><script>alert(1)</script>"), "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
        EXPECT_EQ(htmlEscape("&amp;"), "&amp;amp;") << "text is text, even when it looks like an entity";
        EXPECT_EQ(htmlEscape(""), "");
    }

    TEST(HtmlEscape, KeepsUtf8AndTabsReplacesWhatIsNot)
    {
        EXPECT_EQ(htmlEscape("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5");
        EXPECT_EQ(htmlEscape("\tx = 1;"), "\tx = 1;");
        const std::string fffd = "\xEF\xBF\xBD";
        EXPECT_EQ(htmlEscape("caf\xE9"), "caf" + fffd) << "Latin-1";
        EXPECT_EQ(htmlEscape("\xC0\xAF"), fffd + fffd) << "overlong '/'";
        EXPECT_EQ(htmlEscape("\xED\xA0\x80"), fffd + fffd + fffd) << "a surrogate";
        EXPECT_EQ(htmlEscape("\xE2\x82"), fffd + fffd) << "cut short";
        EXPECT_EQ(htmlEscape("a\rb\x01"), "a" + fffd + "b" + fffd);
    }

    Report smallReport()
    {
        const std::vector<CodeModule> modules
            = { { "k<1>.o", { { 0x1000, 0x1020 } }, 0, true }, { "other.o", { { 0x1020, 0x1040 } }, -1, true } };
        LineTable t;
        t.origin = "listing k.lis";
        t.files = { "k.c" };
        t.ranges = { { 0x1000, 0x1010, 0, 2 }, { 0x1010, 0x1020, 0, 3 } };
        t.text = { { "int f(int a) {", "  return a < 3 && a > 1;", "  while (x) ;", "}" } };
        t.textPaths = { "/src/k.c" };
        Profile p = profileWith({ { 0x1004, 10 }, { 0x1012, 30 }, { 0x1030, 5 } });
        p.image = "/bin/k";
        p.command = { "/bin/k", "a <b>" };
        Report r = buildReport(p, modules);
        analyseLines(r, modules, { t }, { 0 });
        addInstructions(r.lines[0], r.profile, modules[0], t, { { 0x1010, 2, "jmp 0x1010" }, { 0x1012, 14, "x" } });
        return r;
    }

    TEST(HtmlReport, OnePageWithTablesTextAndNothingFetched)
    {
        const std::string page = renderHtmlReport(smallReport());
        EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
        EXPECT_NE(page.find("</html>"), std::string::npos);
        // Self-contained: nothing is loaded from anywhere.
        EXPECT_FALSE(std::regex_search(page, std::regex(R"((src|href)\s*=\s*["']?\s*(https?:|//))")));
        EXPECT_EQ(page.find("<link"), std::string::npos);
        EXPECT_EQ(page.find("@import"), std::string::npos);
        EXPECT_EQ(page.find("url("), std::string::npos);
        // Names and source text are escaped; the module table links to the program text.
        EXPECT_NE(page.find("<a href=\"#m0\">k&lt;1&gt;.o</a>"), std::string::npos) << page;
        EXPECT_NE(page.find("<article class=\"module\" id=\"m0\">"), std::string::npos);
        EXPECT_NE(page.find("  return a &lt; 3 &amp;&amp; a &gt; 1;"), std::string::npos);
        EXPECT_NE(page.find("/bin/k &#39;a &lt;b&gt;&#39;"), std::string::npos) << "the command line";
        EXPECT_EQ(page.find("k<1>"), std::string::npos);
        // other.o has no line table: a row without a link.
        EXPECT_NE(page.find("<td class=\"name\">other.o</td>"), std::string::npos);
        // Line 3, the busiest, with its hits, its instructions and the chart's bar for k<1>.o.
        EXPECT_NE(page.find("<tr id=\"m0-0-3\" class=\"hit\""), std::string::npos);
        EXPECT_NE(page.find("class=\"addr\">1010</td><td class=\"code\">jmp 0x1010</td>"), std::string::npos);
        EXPECT_NE(page.find("<rect class=\"bar\""), std::string::npos);
        EXPECT_NE(page.find("<path class=\"err\""), std::string::npos);
        // Only the numbers of the model: Time % and its error as the text report has them.
        const Report model = smallReport();
        const ModuleRow& top = model.modules[0];
        EXPECT_NE(page.find(fmt::format(">{:.2f}</td>", top.percent)), std::string::npos);
        EXPECT_NE(page.find(fmt::format(">{:.2f}</td>", top.error)), std::string::npos);
    }

    TEST(HtmlReport, WarningsAreEscaped)
    {
        Report r = smallReport();
        r.warnings.push_back("x.lis: <b>bad</b>");
        const std::string page = renderHtmlReport(r);
        EXPECT_NE(page.find("<li>x.lis: &lt;b&gt;bad&lt;/b&gt;</li>"), std::string::npos);
    }

} // namespace
} // namespace ppe::formatter
