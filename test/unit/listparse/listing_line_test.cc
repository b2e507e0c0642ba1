// The line classifier over lines copied from real gas 2.40 listings (gas/listing.c layouts).
#include "listing_line.h"

#include <gtest/gtest.h>

namespace ppe::listparse {

namespace {

    TEST(ListingLine, CodeWithAddressAndBytes)
    {
        ListingLine line = classifyLine("  15 0001 4889E5   \t\tmovq\t%rsp, %rbp");
        EXPECT_EQ(line.kind, LineKind::Code);
        EXPECT_EQ(line.number, 15u);
        EXPECT_TRUE(line.hasAddress);
        EXPECT_EQ(line.address, 1u);
        EXPECT_EQ(line.byteCount, 3u);
        EXPECT_EQ(line.text, "\tmovq\t%rsp, %rbp");
    }

    TEST(ListingLine, ArcShowsTwoByteWords)
    {
        ListingLine line = classifyLine("  27 0002 F81C 8EB4 \t\tstd.a\tr18,[sp,-8]");
        EXPECT_EQ(line.kind, LineKind::Code);
        EXPECT_EQ(line.address, 2u);
        EXPECT_EQ(line.byteCount, 4u);
        EXPECT_EQ(classifyLine("  71      AAAA AAAA ").byteCount, 4u);
    }

    TEST(ListingLine, CodeWithoutBytes)
    {
        ListingLine line = classifyLine("  12              \t\t.loc 1 13 20 view .LVU3");
        EXPECT_EQ(line.kind, LineKind::Code);
        EXPECT_FALSE(line.hasAddress);
        EXPECT_EQ(line.text, "\t.loc 1 13 20 view .LVU3");
        EXPECT_EQ(classifyLine("  24              \t").kind, LineKind::Code);
    }

    TEST(ListingLine, ContinuationBytes)
    {
        ListingLine line = classifyLine("  21      4DE8");
        EXPECT_EQ(line.kind, LineKind::Continuation);
        EXPECT_EQ(line.number, 21u);
        EXPECT_EQ(line.byteCount, 2u);
        EXPECT_EQ(classifyLine("  29      02000000 ").byteCount, 4u);
    }

    TEST(ListingLine, WideLineNumbersAndAddresses)
    {
        ListingLine wide = classifyLine("10000 1a2b3 90       \tnop");
        EXPECT_EQ(wide.kind, LineKind::Code);
        EXPECT_EQ(wide.number, 10000u);
        EXPECT_EQ(wide.address, 0x1a2b3u);
        EXPECT_EQ(classifyLine("1337 0014 FA00 0000 \t\t.4byte\t@.Letext0-@.Ltext0").byteCount, 4u);
    }

    TEST(ListingLine, AddressesAfterAssemblerErrors)
    {
        ListingLine line = classifyLine("  15 ???? 83050000 \t\taddl\t$1, counter(%rip)");
        EXPECT_EQ(line.kind, LineKind::Code);
        EXPECT_TRUE(line.addressUnknown);
    }

    TEST(ListingLine, SourceLines)
    {
        ListingLine line = classifyLine("  17:simp.c        ****         if ((num % cnt) == 0) return cnt;");
        EXPECT_EQ(line.kind, LineKind::Source);
        EXPECT_EQ(line.number, 17u);
        EXPECT_EQ(line.fileName, "simp.c");
        EXPECT_EQ(line.text, "        if ((num % cnt) == 0) return cnt;");
        ListingLine longName = classifyLine("   5:src/sections.c **** ");
        EXPECT_EQ(longName.kind, LineKind::Source);
        EXPECT_EQ(longName.fileName, "src/sections.c");
        EXPECT_EQ(longName.text, "");
        EXPECT_EQ(classifyLine("   2:long.c        **** \tint g(int a) {\treturn a + 2; }").text,
            "\tint g(int a) {\treturn a + 2; }");
    }

    TEST(ListingLine, PageHeadersMessagesAndTheSymbolTable)
    {
        EXPECT_EQ(classifyLine("GAS LISTING /tmp/ccBzHnHj.s \t\t\tpage 1").kind, LineKind::PageHeader);
        EXPECT_EQ(classifyLine("\fGAS LISTING  \t\t\tpage 2").kind, LineKind::PageHeader);
        EXPECT_EQ(classifyLine("****  Warning: ignoring changed section attributes for .text").kind, LineKind::Message);
        EXPECT_EQ(classifyLine("DEFINED SYMBOLS").kind, LineKind::SymbolTable);
        EXPECT_EQ(classifyLine("NO UNDEFINED SYMBOLS").kind, LineKind::SymbolTable);
        EXPECT_EQ(classifyLine(" GNU assembler version 2.40 (x86_64-linux-gnu)").kind, LineKind::GeneralInfo);
        EXPECT_EQ(classifyLine("").kind, LineKind::Blank);
    }

    TEST(ListingLine, WhatIsNotAListingLine)
    {
        for (const char* text : {
                 "int main(int argc, char** argv)",
                 "ppe-profile 1",
                 " .text          0x0000000000401000       0x1f /usr/lib/x86_64-linux-gnu/crt1.o",
                 "1 2\t3",
                 "  12 0000 ABC    \tnop",
                 "  12 00 90    \tnop",
                 "  12  0000 90    \tnop",
                 "  12 0000 90",
                 "  12   4DE8",
                 "  12:simp.c ****",
                 "  17:simp.c        ****text",
                 "12",
             })
            EXPECT_EQ(classifyLine(text).kind, LineKind::Unknown) << text;
    }

} // namespace

} // namespace ppe::listparse
