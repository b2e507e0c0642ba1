// ppeout --asm and --format html on the example simp: the instructions under the hot lines (from
// its listing, and disassembled from the executable), and the HTML page in a real browser
// (headless Chromium: no console error, no request, a screenshot that is not blank).
#include "csv_rows.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;
    const std::string kSources = PPE_EXAMPLES_SOURCE;

    // Profiles simp in CPU mode, on larger primes until the profile holds `samples` in-range samples.
    std::string profileSimp(const TempDir& dir, int samples = 400)
    {
        for (const char* prime : { "10000000000000061", "100000000000000003", "1000000000000000003" }) {
            const RunResult r
                = runProgram({ PPE_LAUNCHER, "-o", dir.file("s.ppe"), "--mode", "cpu", kExamples + "/simp", prime });
            EXPECT_EQ(r.status, 0) << r.err;
            const RunResult head = runProgram({ PPEOUT, dir.file("s.ppe"), "-" });
            if (head.status == 0 && std::atoi(inRangeCount(head.out).c_str()) >= samples)
                break;
        }
        return dir.file("s.ppe");
    }

    struct Instruction {
        uint64_t address = 0;
        double hits = 0;
        std::string text;
    };

    struct AsmLine {
        int line = 0;
        double hits = 0;
        std::string text;
        std::vector<Instruction> instructions;
    };

    // The lines with hits of the first module's program text and the instruction rows under them
    // ("     >     1020 ==...    1189  mov %rdi, %rax": hits, a bar of the default 40 columns, the
    // address in hex and the text, at the text report's fixed columns).
    std::vector<AsmLine> asmLines(const std::string& report)
    {
        static const std::regex kHit(R"(^ *(\d+) +(\d+|<1)\*? ?X* +[0-9.]+  (.*)$)");
        std::vector<AsmLine> lines;
        const size_t text = report.find("\nProgram text.");
        std::istringstream in(text == std::string::npos ? "" : report.substr(text));
        std::string line;
        std::smatch m;
        for (int headings = 0; std::getline(in, line);) {
            headings += line.rfind("Program text.", 0) == 0;
            if (headings > 1)
                break;
            if (std::regex_match(line, m, kHit)) {
                lines.push_back({ std::stoi(m[1]), m[2] == "<1" ? 0.25 : std::stod(m[2]), m[3], {} });
            } else if (line.rfind("     > ", 0) == 0 && !lines.empty() && line.size() > 70) {
                const std::string hits = trim(line.substr(7, 8));
                std::istringstream rest(line.substr(63));
                Instruction i;
                rest >> std::hex >> i.address;
                std::getline(rest, i.text);
                i.text = trim(i.text);
                i.hits = hits.empty() ? 0 : hits == "<1" ? 0.25 : std::stod(hits);
                lines.back().instructions.push_back(i);
            }
        }
        return lines;
    }

    // Every line with hits has its instructions, ascending, summing to its hits (printed rounded:
    // half a hit per row either way; expectExactSums checks the sums themselves); the hottest instruction is in sd's
    // loop (the `for` line or the test inside it). Returns the hottest instruction.
    Instruction expectHottestInLoop(const std::string& report)
    {
        const std::vector<AsmLine> lines = asmLines(report);
        EXPECT_FALSE(lines.empty()) << report;
        const std::string source = kSources + "/simp.c";
        const int loop = lineOf(source, "for (cnt = 3; cnt <= lim; cnt += 2)");
        const int test = lineOf(source, "if ((num % cnt) == 0) return cnt;", loop);
        Instruction hottest;
        int hottestLine = 0;
        for (const AsmLine& l : lines) {
            EXPECT_FALSE(l.instructions.empty()) << "line " << l.line << "\n" << report;
            double sum = 0;
            for (size_t k = 0; k < l.instructions.size(); ++k) {
                sum += l.instructions[k].hits;
                if (k > 0) {
                    EXPECT_LT(l.instructions[k - 1].address, l.instructions[k].address) << "line " << l.line;
                }
                if (l.instructions[k].hits > hottest.hits) {
                    hottest = l.instructions[k];
                    hottestLine = l.line;
                }
            }
            EXPECT_NEAR(sum, l.hits, 0.5 * double(l.instructions.size() + 1)) << "line " << l.line << "\n" << report;
        }
        EXPECT_TRUE(hottestLine == loop || hottestLine == test)
            << "hottest instruction " << hottest.text << " under line " << hottestLine << "\n"
            << report;
        return hottest;
    }

    // The exact sums behind the text's rounded ones: in the CSV of the same report (ppeout `args`
    // with --asm), each line's instruction rows add up to the line's hits.
    void expectExactSums(std::vector<std::string> args)
    {
        args.insert(args.begin(), { PPEOUT, "--format", "csv", "--asm" });
        const RunResult csv = runProgram(args);
        ASSERT_EQ(csv.status, 0) << csv.err;
        EXPECT_GE(expectInstructionsSumToTheirLines(csvRows(csv.out)), 1u) << csv.out;
    }

    // objdump's address column: " 1189:" (the regex then wants the tab after it).
    std::string hex(uint64_t address)
    {
        std::ostringstream s;
        s << "[ \n]" << std::hex << address;
        return s.str();
    }

    TEST(AsmReport, FromTheListingTheHottestInstructionIsInTheLoop)
    {
        TempDir dir;
        const std::string ppe = profileSimp(dir);
        const RunResult out
            = runProgram({ PPEOUT, "--asm", kExamples + "/simp.map", ppe, "-", kExamples + "/simp.lis" });
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_EQ(withoutBenignWarnings(out.err), "");
        const Instruction hottest = expectHottestInLoop(out.out);
        expectExactSums({ kExamples + "/simp.map", ppe, "-", kExamples + "/simp.lis" });
        // The listing's own text for it: the statement as gas shows it, blanks made one space.
        const std::string listing = readFile(kExamples + "/simp.lis");
        std::string spaced;
        for (char c : listing)
            spaced += c == '\t' ? ' ' : c;
        EXPECT_NE(spaced.find(" " + hottest.text), std::string::npos) << hottest.text;
    }

    TEST(AsmReport, FromTheDisassemblyTheHottestInstructionIsInTheLoop)
    {
        TempDir dir;
        const std::string ppe = profileSimp(dir);
        const RunResult out = runProgram({ PPEOUT, "--asm", ppe, "-" });
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_EQ(withoutBenignWarnings(out.err), "");
        const Instruction hottest = expectHottestInLoop(out.out);
        expectExactSums({ ppe, "-" });
        // LLVM decodes the instructions objdump does, at the same addresses.
        const RunResult dump = runProgram({ "objdump", "-d", "--no-show-raw-insn", kExamples + "/simp" });
        if (dump.status != 0)
            GTEST_SKIP() << "objdump -d failed: " << dump.err;
        size_t checked = 0;
        for (const AsmLine& l : asmLines(out.out)) {
            for (const Instruction& i : l.instructions) {
                EXPECT_TRUE(std::regex_search(dump.out, std::regex(hex(i.address) + ":\t")))
                    << hex(i.address) << " " << i.text;
                ++checked;
            }
        }
        EXPECT_GT(checked, 5u);
        EXPECT_NE(hottest.text, "(bad)");
    }

    // The browser, by the names Debian and others give it; "" when there is none.
    std::string findChromium()
    {
        const char* path = std::getenv("PATH");
        std::istringstream dirs(path ? path : "/usr/bin:/bin");
        for (std::string dir; std::getline(dirs, dir, ':');) {
            for (const char* name : { "chromium", "chromium-browser", "google-chrome" }) {
                if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0)
                    return dir + "/" + name;
            }
        }
        return "";
    }

    // Headless Chromium on `url` with `extra` options, its own profile in `dir` and every request
    // sent to a proxy where nothing listens (discard, port 9): the page must need none.
    RunResult chromium(
        const std::string& browser, const TempDir& dir, std::vector<std::string> extra, const std::string& url)
    {
        std::vector<std::string> argv
            = { browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + dir.file("chromium"),
                  "--proxy-server=127.0.0.1:9", "--enable-logging=stderr", "--v=0" };
        argv.insert(argv.end(), extra.begin(), extra.end());
        argv.push_back(url);
        return runProgram(argv);
    }

    // What the page loaded (Resource Timing lists failed requests too) and whether its own script
    // ran to its end, as attributes of <body> that --dump-dom shows.
    const char* const kProbe = R"(<script>window.addEventListener("load", function () {
  document.body.setAttribute("data-resources", performance.getEntriesByType("resource")
    .map(function (e) { return e.name; }).join(" ")); });</script>
)";

    std::vector<std::string> consoleLines(const std::string& log)
    {
        std::vector<std::string> lines;
        std::istringstream in(log);
        for (std::string line; std::getline(in, line);) {
            if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos)
                lines.push_back(line);
        }
        return lines;
    }

    TEST(HtmlReport, OpensInChromiumWithoutErrorsOrRequestsAndShowsTheHotLine)
    {
        TempDir dir;
        const std::string ppe = profileSimp(dir);
        const std::string page = dir.file("simp.html");
        const RunResult out = runProgram(
            { PPEOUT, "--format", "html", "--asm", kExamples + "/simp.map", ppe, page, kExamples + "/simp.lis" });
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_EQ(withoutBenignWarnings(out.err), "");
        const std::string html = readFile(page);
        EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?\s*(https?:|//))")));
        const std::string browser = findChromium();
        if (browser.empty())
            GTEST_SKIP() << "no chromium in PATH (Debian: apt-get install chromium, as scripts/install-deps.sh does)";

        std::string probed = html;
        probed.insert(probed.rfind("</body>"), kProbe);
        std::ofstream(dir.file("probed.html")) << probed;
        const RunResult dom = chromium(
            browser, dir, { "--virtual-time-budget=5000", "--dump-dom" }, "file://" + dir.file("probed.html"));
        ASSERT_EQ(dom.status, 0) << dom.err;
        EXPECT_EQ(consoleLines(dom.err), std::vector<std::string>()) << "console messages";
        EXPECT_NE(dom.out.find("data-ready=\"1\""), std::string::npos) << "the page's script did not run to its end";
        EXPECT_NE(dom.out.find("data-resources=\"\""), std::string::npos) << "requests: " << dom.out.substr(0, 2000);
        EXPECT_NE(dom.out.find("<table class=\"sortable modules\">"), std::string::npos);
        EXPECT_NE(dom.out.find("<a href=\"#m0\">simp.c.o</a>"), std::string::npos);
        const std::string source = kSources + "/simp.c";
        const int hot = lineOf(source, "if ((num % cnt) == 0) return cnt;", lineOf(source, "for (cnt = 3;"));
        EXPECT_TRUE(std::regex_search(dom.out,
            std::regex("<tr id=\"m0-0-" + std::to_string(hot)
                + R"(" class="hit"[^>]*>.*if \(\(num % cnt\) == 0\) return cnt;</td></tr>\s*<tr class="asm")")))
            << "the hot line, with its instructions under it";

        const RunResult shot = chromium(
            browser, dir, { "--screenshot=" + dir.file("shot.png"), "--window-size=1280,900" }, "file://" + page);
        ASSERT_EQ(shot.status, 0) << shot.err;
        const RunResult png = runProgram({ "python3", PPE_PNG_COLOURS, dir.file("shot.png") });
        ASSERT_EQ(png.status, 0) << png.err;
        std::istringstream facts(png.out);
        int width = 0, height = 0, colours = 0;
        double inked = 0;
        facts >> width >> height >> colours >> inked;
        EXPECT_EQ(width, 1280);
        EXPECT_EQ(height, 900);
        EXPECT_GT(colours, 50) << "text, bars and shades";
        EXPECT_GT(inked, 0.03) << "a screenshot with almost nothing on it";
    }

    // Issue 38: `ppeout --diff --format html` of two builds of diff_work (south() does twice the
    // work in the second): the comparison section, its function table with south() marked.
    TEST(HtmlReport, OpensInChromiumWithTheComparisonOfTwoBuilds)
    {
        if (!perfEventsAvailable())
            GTEST_SKIP() << "perf task-clock events unavailable: the 250 Hz fallback gives too few samples";
        TempDir dir;
        for (const char* name : { "diff_work", "diff_work_slow" }) {
            const RunResult run = runProgram({ kExamples + "/" + name },
                { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_OUT", dir.file(std::string(name) + ".ppe") } });
            ASSERT_EQ(run.status, 0) << run.err;
        }
        const RunResult out = runProgram({ PPEOUT, "--format", "html", "--diff", dir.file("diff_work.ppe"),
            dir.file("diff_work_slow.ppe"), dir.file("diff.html") });
        ASSERT_EQ(out.status, 0) << out.err;
        const std::string browser = findChromium();
        if (browser.empty())
            GTEST_SKIP() << "no chromium in PATH (Debian: apt-get install chromium, as scripts/install-deps.sh does)";
        std::string probed = readFile(dir.file("diff.html"));
        probed.insert(probed.rfind("</body>"), kProbe);
        std::ofstream(dir.file("probed.html")) << probed;
        const RunResult dom = chromium(
            browser, dir, { "--virtual-time-budget=5000", "--dump-dom" }, "file://" + dir.file("probed.html"));
        ASSERT_EQ(dom.status, 0) << dom.err;
        EXPECT_EQ(consoleLines(dom.err), std::vector<std::string>()) << "console messages";
        EXPECT_NE(dom.out.find("data-ready=\"1\""), std::string::npos) << "the page's script did not run to its end";
        EXPECT_NE(dom.out.find("data-resources=\"\""), std::string::npos) << "requests: " << dom.out.substr(0, 2000);
        EXPECT_NE(dom.out.find("<a href=\"#diff\">Comparison</a>"), std::string::npos);
        const size_t at = dom.out.find("<table class=\"sortable diff\" data-kind=\"function\">");
        ASSERT_NE(at, std::string::npos) << dom.out.substr(0, 4000);
        const std::string table = dom.out.substr(at, dom.out.find("</table>", at) - at);
        std::smatch marked;
        ASSERT_TRUE(std::regex_search(table, marked, std::regex(R"(<tr class="significant">.*</tr>)"))) << table;
        EXPECT_NE(marked.str().find("<td class=\"name\">south (diff_work.c)</td>"), std::string::npos) << table;
        EXPECT_NE(marked.str().find("<td class=\"moved\">slower</td>"), std::string::npos) << table;
        EXPECT_EQ(marked.suffix().str().find("class=\"significant\""), std::string::npos) << "south() alone";
    }

} // namespace
} // namespace ppe::testing
