// The signal-safe text writer: exact bytes of every formatter, buffering smaller than the data, and
// write errors kept for the caller.
#include "ppe/core/line_writer.h"

#include "memfd.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace ppe {
namespace {

    using test::Memfd;

    // Runs `write` on a LineWriter with a `bufferSize`-byte buffer over a memfd; returns the bytes.
    template <class Write> std::string written(Write write, size_t bufferSize = 256)
    {
        Memfd file;
        std::string buffer(bufferSize, '\0');
        LineWriter w(file.fd(), buffer.data(), buffer.size());
        write(w);
        EXPECT_TRUE(w.flush());
        EXPECT_TRUE(w.ok());
        EXPECT_EQ(w.error(), 0);
        return file.contents();
    }

    TEST(LineWriter, NothingWrittenUntilFlush)
    {
        Memfd file;
        char buffer[64];
        LineWriter w(file.fd(), buffer, sizeof(buffer));
        w.str("abc").endl();
        EXPECT_EQ(file.contents(), "");
        EXPECT_TRUE(w.flush());
        EXPECT_EQ(file.contents(), "abc\n");
        EXPECT_TRUE(w.flush());
        EXPECT_EQ(file.contents(), "abc\n");
    }

    TEST(LineWriter, StrAndCh)
    {
        EXPECT_EQ(written([](LineWriter& w) { w.str("key").ch(' ').str("value", 3).endl(); }), "key val\n");
        EXPECT_EQ(written([](LineWriter& w) { w.str("a\0b", 3); }), std::string("a\0b", 3));
        EXPECT_EQ(written([](LineWriter& w) { w.str(""); }), "");
    }

    TEST(LineWriter, QuotedEscapes)
    {
        const char text[] = "a\"b\\c\nd\te\x01"
                            "f\xff"
                            "g\x7f"
                            "h ~";
        EXPECT_EQ(written([&](LineWriter& w) { w.quoted(text); }), R"("a\"b\\c\nd\te\x01f\xffg\x7fh ~")");
    }

    TEST(LineWriter, QuotedWithLengthKeepsNulBytes)
    {
        EXPECT_EQ(written([](LineWriter& w) { w.quoted("a\0b", 3); }), R"("a\x00b")");
        EXPECT_EQ(written([](LineWriter& w) { w.quoted(""); }), R"("")");
        EXPECT_EQ(written([](LineWriter& w) { w.quoted("\r\x1f\x80"); }), R"("\x0d\x1f\x80")");
    }

    TEST(LineWriter, Decimal)
    {
        EXPECT_EQ(written([](LineWriter& w) { w.dec(0); }), "0");
        EXPECT_EQ(written([](LineWriter& w) { w.dec(7); }), "7");
        EXPECT_EQ(written([](LineWriter& w) { w.dec(1000); }), "1000");
        EXPECT_EQ(written([](LineWriter& w) { w.dec(UINT64_MAX); }), "18446744073709551615");
    }

    TEST(LineWriter, SignedDecimal)
    {
        EXPECT_EQ(written([](LineWriter& w) { w.sdec(-5); }), "-5");
        EXPECT_EQ(written([](LineWriter& w) { w.sdec(0); }), "0");
        EXPECT_EQ(written([](LineWriter& w) { w.sdec(42); }), "42");
        EXPECT_EQ(written([](LineWriter& w) { w.sdec(INT64_MIN); }), "-9223372036854775808");
        EXPECT_EQ(written([](LineWriter& w) { w.sdec(INT64_MAX); }), "9223372036854775807");
    }

    TEST(LineWriter, Hex)
    {
        EXPECT_EQ(written([](LineWriter& w) { w.hex(0); }), "0x0");
        EXPECT_EQ(written([](LineWriter& w) { w.hex(0xdeadbeef); }), "0xdeadbeef");
        EXPECT_EQ(written([](LineWriter& w) { w.hex(0x10); }), "0x10");
        EXPECT_EQ(written([](LineWriter& w) { w.hex(UINT64_MAX); }), "0xffffffffffffffff");
    }

    TEST(LineWriter, HexBytes)
    {
        const uint8_t bytes[] = { 0x00, 0x0f, 0xa0, 0xff, 0x5c };
        EXPECT_EQ(written([&](LineWriter& w) { w.hexBytes(bytes, sizeof(bytes)); }), "000fa0ff5c");
        EXPECT_EQ(written([&](LineWriter& w) { w.hexBytes(bytes, 0); }), "");
    }

    TEST(LineWriter, Fixed)
    {
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(1234567, 3); }), "1234.567");
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(5, 3); }), "0.005");
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(7, 0); }), "7");
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(0, 6); }), "0.000000");
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(2000000, 3); }), "2000.000");
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(1, 9); }), "0.000000001");
        EXPECT_EQ(written([](LineWriter& w) { w.fixed(UINT64_MAX, 9); }), "18446744073.709551615");
    }

    TEST(LineWriter, SmallBufferWritesEverythingInOrder)
    {
        auto text = [](LineWriter& w) {
            for (unsigned i = 0; i < 50; ++i)
                w.str("line ").dec(i).ch(' ').hex(uint64_t(i) << 40).ch(' ').quoted("a \"long\" value\n").endl();
        };
        const std::string expected = written(text, 4096);
        ASSERT_GT(expected.size(), 1000u);
        EXPECT_EQ(written(text, 16), expected);
        EXPECT_EQ(written(text, 1), expected);
        EXPECT_EQ(written(text, 7), expected);
    }

    TEST(LineWriter, StringLongerThanTheBuffer)
    {
        const std::string big(1000, 'x');
        EXPECT_EQ(written([&](LineWriter& w) { w.ch('<').str(big.c_str()).ch('>'); }, 16), "<" + big + ">");
    }

    TEST(LineWriter, BadDescriptorFailsOnFlush)
    {
        char buffer[64];
        LineWriter w(-1, buffer, sizeof(buffer));
        w.str("lost");
        EXPECT_TRUE(w.ok()) << "nothing has been written yet";
        EXPECT_FALSE(w.flush());
        EXPECT_FALSE(w.ok());
        EXPECT_EQ(w.error(), EBADF);
    }

    TEST(LineWriter, ClosedDescriptorFailsWhenTheBufferFills)
    {
        int fds[2];
        ASSERT_EQ(pipe(fds), 0);
        close(fds[0]);
        close(fds[1]); // a descriptor number that no longer refers to anything
        char buffer[16];
        LineWriter w(fds[1], buffer, sizeof(buffer));
        w.str("more than sixteen bytes of text");
        EXPECT_FALSE(w.ok());
        EXPECT_EQ(w.error(), EBADF);
        EXPECT_FALSE(w.flush());
        EXPECT_EQ(w.error(), EBADF);
    }

    TEST(LineWriter, FullDeviceReportsNoSpace)
    {
        const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            GTEST_SKIP() << "/dev/full is not available";
        char buffer[16];
        LineWriter w(fd, buffer, sizeof(buffer));
        w.str("x").endl();
        EXPECT_FALSE(w.flush());
        EXPECT_EQ(w.error(), ENOSPC);
        close(fd);
    }

    TEST(LineWriter, ReadOnlyDescriptorFails)
    {
        const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ASSERT_GE(fd, 0);
        char buffer[16];
        LineWriter w(fd, buffer, sizeof(buffer));
        w.str("x");
        EXPECT_FALSE(w.flush());
        EXPECT_EQ(w.error(), EBADF);
        close(fd);
    }

    TEST(LineWriter, FailureIsSticky)
    {
        char buffer[8];
        LineWriter w(-1, buffer, sizeof(buffer));
        w.str("12345678").str("9");
        EXPECT_FALSE(w.ok());
        const int error = w.error();
        w.str("more");
        EXPECT_FALSE(w.flush());
        EXPECT_EQ(w.error(), error);
    }

} // namespace
} // namespace ppe
