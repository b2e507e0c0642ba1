// The output formats' building blocks and renderers on hand-made reports: JSON strings and numbers,
// CSV quoting, the callgrind, CSV and JSON of a report with instructions (--asm), and the progress
// line on a terminal and elsewhere.
#include "ppe/formatter/csv_writer.h"
#include "ppe/formatter/json_writer.h"
#include "ppe/formatter/progress.h"
#include "ppe/formatter/renderers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sstream>
#include <unistd.h>

namespace ppe::formatter {
namespace {

    TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters)
    {
        EXPECT_EQ(jsonString("plain"), "\"plain\"");
        EXPECT_EQ(jsonString("say \"hi\" \\ there"), R"("say \"hi\" \\ there")");
        EXPECT_EQ(jsonString("a\nb\tc\rd\be\ff"), R"("a\nb\tc\rd\be\ff")");
        EXPECT_EQ(jsonString(std::string("nul\0x\x01\x1f", 7)), R"("nul\u0000x\u0001\u001f")");
        EXPECT_EQ(jsonString("\x7f/"), "\"\x7f/\""); // DEL and '/' need no escape
    }

    TEST(JsonString, KeepsUtf8AndReplacesInvalidBytes)
    {
        EXPECT_EQ(
            jsonString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
        EXPECT_EQ(jsonString("Latin-1 caf\xe9!"), R"("Latin-1 caf\ufffd!")");
        EXPECT_EQ(jsonString("cut \xc3"), R"("cut \ufffd")");
        EXPECT_EQ(jsonString("\xc0\xaf"), R"("\ufffd\ufffd")") << "overlong '/'";
        EXPECT_EQ(jsonString("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")") << "a UTF-16 surrogate";
        EXPECT_EQ(jsonString("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")") << "above U+10FFFF";
        EXPECT_EQ(jsonString("\x80x"), R"("\ufffdx")");
    }

    TEST(JsonNumber, ShortestTextThatReadsBackExactly)
    {
        EXPECT_EQ(jsonNumber(5794), "5794");
        EXPECT_EQ(jsonNumber(0.1), "0.1");
        EXPECT_EQ(jsonNumber(21.296), "21.296");
        for (double v : { 1.0 / 3, 100.0 * 5794 / 27207, 2.5e-300, 1e20, -0.0 })
            EXPECT_EQ(std::strtod(jsonNumber(v).c_str(), nullptr), v) << jsonNumber(v);
        EXPECT_EQ(jsonNumber(std::nan("")), "null");
        EXPECT_EQ(jsonNumber(HUGE_VAL), "null");
    }

    TEST(JsonWriter, NestsAndIndents)
    {
        std::string out;
        JsonWriter w(out);
        w.beginObject();
        w.field("n", uint64_t(18446744073709551615u));
        w.field("i", -3);
        w.field("ok", true);
        w.key("list");
        w.beginArray();
        w.value("a");
        w.beginObject();
        w.endObject();
        w.endArray();
        w.key("none");
        w.null();
        w.endObject();
        EXPECT_EQ(out,
            "{\n  \"n\": 18446744073709551615,\n  \"i\": -3,\n  \"ok\": true,\n  \"list\": [\n    \"a\",\n"
            "    {}\n  ],\n  \"none\": null\n}\n");
    }

    TEST(Csv, QuotesAsRfc4180Says)
    {
        EXPECT_EQ(csvField("plain text"), "plain text");
        EXPECT_EQ(csvField(""), "");
        EXPECT_EQ(csvField("a,b"), "\"a,b\"");
        EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
        EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
        EXPECT_EQ(csvField("cr\r"), "\"cr\r\"");
        EXPECT_EQ(csvField("    for (;;)"), "\"    for (;;)\"") << "leading spaces kept by quoting";
        EXPECT_EQ(csvRecord({ "a", "b,c", "" }), "a,\"b,c\",\r\n");
    }

    // A report of a program `prog` with two functions: sd with a line analysis (two lines, one of
    // them with two instructions, one line of an inlined header) and main without; a shared object.
    Report handMadeReport()
    {
        Report r;
        r.profile.image = "/bin/prog";
        r.profile.pid = 42;
        r.profile.command = { "/bin/prog", "7" };
        r.profile.mechanism = "posix-timer";
        r.profile.counts[kInRange] = 100;
        r.profile.counts[kShared] = 20;
        r.profile.total = 120;
        r.totals.intervalMs = 0.5;
        r.totals.system = 20;
        r.moduleKind = ModuleKind::Function;
        r.modules = { ModuleRow { 0, "sd", 90, 90, 3, 90, 0x1100, 0x40, 75, 0, 1 },
            ModuleRow { 1, "main", 8, 8, 2.7, 98, 0x1000, 0x80, 6.67, 0, 1 } };
        r.unattributed = Share { 2, 2, 1.4 };
        ModuleLines sd { 0, "sd", "DWARF line table", 90, 1, 70, 0, {} };
        FileLines own { "src/prog.c", "/home/me/src/prog.c", true, {}, {} };
        own.rows.push_back(LineRow { 10, "int sd(int n) {", 0, 0, true, 0, {} });
        own.rows.push_back(LineRow { 12, "  if (n % c == 0) return c;", 70, 77.8, true, 0,
            { InstructionRow { 0x1110, "mov %rdi,%rax", 20 }, InstructionRow { 0x1113, "idiv %rcx", 50 } } });
        FileLines header { "inc/div.h", "/home/me/inc/div.h", false, {}, { "sd" } };
        header.rows.push_back(LineRow { 3, "return a / b;", 19, 98.9, true, 0, {} });
        sd.files = { own, header };
        r.lines = { sd };
        ObjectRow libc;
        libc.path = "/lib/libc.so.6";
        libc.name = "libc.so.6";
        libc.hits = 20;
        libc.percent = 16.67;
        libc.functions = { FunctionRow { "memcpy", 12, 10, 2.7, 0x9000, 64 } };
        libc.moreFunctions = 2;
        libc.moreFunctionsHits = 5;
        libc.withoutFunction = Share { 3, 2.5, 1.4 };
        r.objects = { libc };
        return r;
    }

    TEST(Callgrind, HandMadeReportWithInstructions)
    {
        const std::string out = renderCallgrindReport(handMadeReport(), {});
        const std::string expected = "# callgrind format\n"
                                     "version: 1\n"
                                     "creator: ppeout\n"
                                     "pid: 42\n"
                                     "cmd: /bin/prog 7\n"
                                     "part: 1\n"
                                     "desc: Image: /bin/prog\n"
                                     "desc: Sampling: posix-timer every 0.5 ms (CPU time)\n"
                                     "positions: instr line\n"
                                     "event: Samples : PC samples\n"
                                     "events: Samples\n"
                                     "summary: 120\n"
                                     "\n"
                                     "ob=(1) /bin/prog\n"
                                     "fl=(1) /home/me/src/prog.c\n"
                                     "fn=(1) sd\n"
                                     "0x1110 12 20\n"
                                     "0x1113 12 50\n"
                                     "0x1100 0 1\n"
                                     "fi=(2) /home/me/inc/div.h\n"
                                     "0x1100 3 19\n"
                                     "fl=(3) ???\n"
                                     "fn=(2) main\n"
                                     "0x1000 0 8\n"
                                     "fl=(3)\n"
                                     "fn=(3) (no module)\n"
                                     "0x0 0 2\n"
                                     "\n"
                                     "ob=(2) /lib/libc.so.6\n"
                                     "fl=(3)\n"
                                     "fn=(4) memcpy\n"
                                     "0x9000 0 12\n"
                                     "fl=(3)\n"
                                     "fn=(5) (other functions in libc.so.6)\n"
                                     "0x0 0 5\n"
                                     "fl=(3)\n"
                                     "fn=(6) (no function in libc.so.6)\n"
                                     "0x0 0 3\n"
                                     "\n"
                                     "totals: 120\n";
        EXPECT_EQ(out, expected);
    }

    TEST(Callgrind, LinePositionsWithoutInstructions)
    {
        Report r = handMadeReport();
        r.lines[0].files[0].rows[1].instructions.clear();
        const std::string out = renderCallgrindReport(r, {});
        EXPECT_NE(out.find("positions: line\n"), std::string::npos) << out;
        EXPECT_NE(out.find("fn=(1) sd\n12 70\n0 1\nfi=(2) /home/me/inc/div.h\n3 19\n"), std::string::npos) << out;
        EXPECT_EQ(out.find("0x"), std::string::npos) << out;
    }

    // With call paths, each caller's calls after the costs: the callee where the file has it (sd in
    // its file; memcpy in libc by its call-path name "memcpy (libc.so.6)"), else under the object
    // its name ends with or the executable, file ???; calls=0 (sampling counts no calls), the call
    // site on line 0, the callee's inclusive samples under the caller; no line for a call of none.
    TEST(Callgrind, CallPathsGiveEachCallersCalls)
    {
        Report r = handMadeReport();
        r.lines[0].files[0].rows[1].instructions.clear();
        r.profile.objects = { SharedObject { "/lib/libc.so.6", "", 20, {} } };
        r.calls = CallPathsReport {};
        r.calls->arcs = { CallArc { "_start (libc.so.6)", "main", 100 }, CallArc { "main", "memcpy (libc.so.6)", 12 },
            CallArc { "main", "sd", 88.4 }, CallArc { "main", "unused", 0.2 } };
        const std::string out = renderCallgrindReport(r, {});
        const std::string calls = "\n"
                                  "ob=(2)\n"
                                  "fl=(3)\n"
                                  "fn=(7) _start\n"
                                  "cob=(1)\n"
                                  "cfi=(3)\n"
                                  "cfn=(2)\n"
                                  "calls=0 0\n"
                                  "0 100\n"
                                  "\n"
                                  "ob=(1)\n"
                                  "fl=(3)\n"
                                  "fn=(2)\n"
                                  "cob=(2)\n"
                                  "cfi=(3)\n"
                                  "cfn=(4)\n"
                                  "calls=0 0\n"
                                  "0 12\n"
                                  "cob=(1)\n"
                                  "cfi=(1)\n"
                                  "cfn=(1)\n"
                                  "calls=0 0\n"
                                  "0 88\n"
                                  "\n"
                                  "totals: 120\n";
        ASSERT_GE(out.size(), calls.size());
        EXPECT_EQ(out.substr(out.size() - calls.size()), calls) << out;
        // With instructions, the call site is instruction 0 of line 0.
        Report withInstructions = handMadeReport();
        withInstructions.calls = r.calls;
        EXPECT_NE(renderCallgrindReport(withInstructions, {}).find("calls=0 0 0\n0 0 88\n"), std::string::npos);
    }

    // The CSV's records as fields (the renderer's quoting is simple: no field here holds a quote).
    std::vector<std::vector<std::string>> csvRows(const std::string& csv)
    {
        std::vector<std::vector<std::string>> rows;
        std::istringstream in(csv);
        std::string line;
        while (std::getline(in, line)) {
            EXPECT_EQ(line.back(), '\r');
            line.pop_back();
            std::vector<std::string> fields(1);
            bool quoted = false;
            for (char c : line) {
                if (c == '"')
                    quoted = !quoted;
                else if (c == ',' && !quoted)
                    fields.emplace_back();
                else
                    fields.back() += c;
            }
            rows.push_back(fields);
        }
        return rows;
    }

    TEST(Csv, RowsOfEachKindSumToTheirTotals)
    {
        const auto rows = csvRows(renderCsvReport(handMadeReport(), {}));
        ASSERT_GE(rows.size(), 2u);
        const std::vector<std::string>& header = rows[0];
        ASSERT_EQ(header[0], "kind");
        std::map<std::string, size_t> column;
        for (size_t i = 0; i < header.size(); ++i)
            column[header[i]] = i;
        std::map<std::string, double> sums; // kind -> hits
        std::map<std::string, size_t> counts;
        for (size_t i = 1; i < rows.size(); ++i) {
            ASSERT_EQ(rows[i].size(), header.size()) << i;
            const std::string& kind = rows[i][0];
            sums[kind] += std::stod(rows[i][column["hits"]]);
            ++counts[kind];
        }
        EXPECT_DOUBLE_EQ(sums["count"], 120); // the profile's total
        EXPECT_DOUBLE_EQ(sums["module"], 100); // in range, "(no module)" included
        EXPECT_DOUBLE_EQ(sums["line"], 90); // sd's hits, "(no line)" included
        EXPECT_DOUBLE_EQ(sums["instruction"], 70); // line 12
        EXPECT_DOUBLE_EQ(sums["object"], 20);
        EXPECT_DOUBLE_EQ(sums["function"], 20); // memcpy, 2 more functions, no function
        EXPECT_EQ(counts["instruction"], 2u);
        const auto& first
            = *std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r[0] == "instruction"; });
        EXPECT_EQ(first[column["address"]], "0x1110");
        EXPECT_EQ(first[column["line"]], "12");
        EXPECT_EQ(first[column["function"]], "sd");
        EXPECT_EQ(first[column["text"]], "mov %rdi,%rax");
        // Every function row names its object; the left-out functions have hits and no share.
        for (const auto& r : rows) {
            if (r[0] != "function")
                continue;
            EXPECT_EQ(r[column["object"]], "/lib/libc.so.6") << r[column["function"]];
            const bool more = r[column["function"]] == "(2 more functions)";
            EXPECT_EQ(r[column["percent"]].empty(), more) << r[column["function"]];
            EXPECT_EQ(r[column["error"]].empty(), more) << r[column["function"]];
        }
    }

    TEST(Json, InstructionsUnderTheirLine)
    {
        const std::string out = renderJsonReport(handMadeReport(), {});
        EXPECT_NE(out.find("\"instructions\": [\n"
                           "                {\n"
                           "                  \"address\": 4368,\n"
                           "                  \"text\": \"mov %rdi,%rax\",\n"
                           "                  \"hits\": 20\n"),
            std::string::npos)
            << out;
        EXPECT_NE(out.find("\"more_functions_hits\": 5"), std::string::npos);
        EXPECT_NE(out.find("\"function_modules\": true"), std::string::npos);
        EXPECT_NE(out.find("\"module_kind\": \"function\""), std::string::npos) << out;
    }

    TEST(Renderers, FoundByName)
    {
        for (const char* name : { "ppl", "json", "csv", "callgrind", "html" })
            ASSERT_NE(findRenderer(name), nullptr) << name;
        EXPECT_EQ(findRenderer("xml"), nullptr);
        EXPECT_STREQ(renderers().front().name, "ppl") << "the default first";
    }

    // Reads what `fd` gets until it holds `want` or 10 s pass.
    std::string readUntil(int fd, const std::string& want)
    {
        std::string got;
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (got.find(want) == std::string::npos && std::chrono::steady_clock::now() < end) {
            pollfd p { fd, POLLIN, 0 };
            if (::poll(&p, 1, 100) <= 0)
                continue;
            char buffer[256];
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n <= 0)
                break;
            got.append(buffer, size_t(n));
        }
        return got;
    }

    TEST(Progress, RewritesOneLineOnATerminal)
    {
        const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0)
            GTEST_SKIP() << "no pseudo-terminal (posix_openpt)";
        const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
        ASSERT_GE(terminal, 0);
        {
            ProgressLine progress(terminal, ProgressMode::Auto, std::chrono::milliseconds(0));
            progress.phase("reading sources", 3, 40);
            EXPECT_NE(readUntil(master, "ppeout: reading sources 3/40").find("\rppeout: reading sources 3/40\033[K"),
                std::string::npos);
            progress.finish();
            EXPECT_NE(readUntil(master, "\r\033[K").find("\r\033[K"), std::string::npos) << "the line cleared";
        }
        ::close(terminal);
        ::close(master);
    }

    // Auto on a terminal: nothing while the delay lasts (a fast run shows no line), then the phase
    // it is in, drawn by the progress thread without another phase starting.
    TEST(Progress, AutoOnATerminalWaitsForTheDelay)
    {
        const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0)
            GTEST_SKIP() << "no pseudo-terminal (posix_openpt)";
        const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
        ASSERT_GE(terminal, 0);
        const auto delay = std::chrono::milliseconds(1500);
        const auto start = std::chrono::steady_clock::now();
        {
            ProgressLine progress(terminal, ProgressMode::Auto, delay);
            progress.phase("reading DWARF");
            pollfd p { master, POLLIN, 0 };
            const int ready = ::poll(&p, 1, 700);
            if (std::chrono::steady_clock::now() - start < delay) { // not when the machine stalled that long
                EXPECT_EQ(ready, 0) << "written before the delay";
            }
            const std::string shown = readUntil(master, "ppeout: reading DWARF\033[K");
            EXPECT_NE(shown.find("\rppeout: reading DWARF\033[K"), std::string::npos) << shown;
            EXPECT_GE(std::chrono::steady_clock::now() - start, delay);
        }
        ::close(terminal);
        ::close(master);
    }

    TEST(Progress, SilentOnAPipeUnlessAsked)
    {
        int fds[2];
        ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
        {
            ProgressLine quiet(fds[1], ProgressMode::Auto, std::chrono::milliseconds(0));
            quiet.phase("reading DWARF");
        }
        char buffer[256];
        EXPECT_EQ(::read(fds[0], buffer, sizeof buffer), -1) << "nothing written";
        {
            ProgressLine asked(fds[1], ProgressMode::Always);
            asked.phase("reading DWARF");
            asked.phase("reading sources", 1, 2);
            asked.phase("reading sources", 2, 2);
        }
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        ASSERT_GT(n, 0);
        EXPECT_EQ(std::string(buffer, size_t(n)), "ppeout: reading DWARF\nppeout: reading sources\n");
        ::close(fds[0]);
        ::close(fds[1]);
    }

} // namespace
} // namespace ppe::formatter
