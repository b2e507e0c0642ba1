// The command line the reports print must be one a real shell reads back as the same argv.
#include "ppe/formatter/shell_quote.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace ppe::formatter {
namespace {

    // Runs `line` with /bin/sh -c (what popen does) and returns what it printed.
    std::string runShell(const std::string& line)
    {
        FILE* pipe = popen(line.c_str(), "r");
        if (pipe == nullptr)
            return "popen failed";
        std::string out;
        char buffer[4096];
        for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
            out.append(buffer, n);
        pclose(pipe);
        return out;
    }

    // printf prints every argument after the format ended by a NUL, which no argument holds.
    std::vector<std::string> readBack(const std::vector<std::string>& args)
    {
        std::vector<std::string> argv = { "printf", "%s\\000" };
        argv.insert(argv.end(), args.begin(), args.end());
        const std::string out = runShell(shellCommand(argv));
        std::vector<std::string> words;
        for (size_t start = 0, end; (end = out.find('\0', start)) != std::string::npos; start = end + 1)
            words.push_back(out.substr(start, end - start));
        return words;
    }

    TEST(ShellQuote, EveryByteRoundTripsThroughARealShell)
    {
        std::vector<std::string> args;
        for (int byte = 0x01; byte <= 0xff; ++byte) {
            const char c = static_cast<char>(byte);
            args.push_back(std::string(1, c));
            args.push_back(std::string("a") + c + "b" + c + c);
        }
        args.push_back("");
        args.push_back("it's a 'quoted' \"word\" $HOME `id` \\n *.c ~ #x");
        EXPECT_EQ(readBack(args), args);
    }

    TEST(ShellQuote, SafeWordsStayBareAsBefore)
    {
        EXPECT_EQ(shellCommand({ "./ktest", "2", "--n=5", "/tmp/a-b_c.d,e:f@g%h+i", "caf\xc3\xa9" }),
            "./ktest 2 --n=5 /tmp/a-b_c.d,e:f@g%h+i caf\xc3\xa9");
        EXPECT_EQ(shellCommand({ "prog", "", "a b" }), "prog '' 'a b'");
    }

    TEST(ShellQuote, EmbeddedQuoteEndsAndReopensTheQuotes)
    {
        EXPECT_EQ(shellWord("it's"), "'it'\\''s'");
        EXPECT_EQ(shellWord("*"), "'*'");
    }

    TEST(ShellQuote, CommandPositionQuotesAssignmentsAndReservedWords)
    {
        EXPECT_EQ(shellCommand({ "FOO=1", "FOO=1" }), "'FOO=1' FOO=1");
        EXPECT_EQ(shellCommand({ "if", "if" }), "'if' if");
        EXPECT_EQ(shellCommand({ "./a=b" }), "./a=b");
    }

} // namespace
} // namespace ppe::formatter
