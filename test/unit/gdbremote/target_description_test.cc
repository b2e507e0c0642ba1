// Target descriptions: the real ones the servers sent (taken from the transcripts), and made-up
// ones for numbering rules and errors.
#include "fake_peer.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/target_description.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sys/stat.h>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;

namespace {

DocumentFetcher fetcherOf(std::map<std::string, std::string> docs)
{
    return [docs = std::move(docs)](const std::string& name) -> ppe::Result<std::string> {
        auto found = docs.find(name);
        if (found == docs.end())
            return ppe::Error { name, 0, "no such document" };
        return found->second;
    };
}

TargetDescription fromTranscript(const std::string& transcript)
{
    auto tdesc = readTargetDescription("target.xml", fetcherOf(documentsOf(transcript)));
    EXPECT_TRUE(tdesc.ok()) << (tdesc ? "" : tdesc.error().str());
    return tdesc ? *tdesc : TargetDescription {};
}

} // namespace

TEST(TargetDescription, GdbserverAmd64HasRipAt16)
{
    auto tdesc = fromTranscript("gdbserver-launch");
    EXPECT_EQ(tdesc.architecture, "i386:x86-64");
    EXPECT_EQ(tdesc.osabi, "GNU/Linux");
    const RegisterInfo* pc = tdesc.pc();
    ASSERT_NE(pc, nullptr);
    EXPECT_EQ(pc->name, "rip");
    EXPECT_EQ(pc->regnum, 16u);
    EXPECT_EQ(pc->offset, 128u);
    EXPECT_EQ(pc->feature, "org.gnu.gdb.i386.core");
    EXPECT_EQ(tdesc.registers.front().name, "rax");
}

TEST(TargetDescription, QemuAarch64NumbersPcImplicitlyAcrossIncludes)
{
    auto tdesc = fromTranscript("qemu-aarch64");
    EXPECT_EQ(tdesc.architecture, "aarch64");
    EXPECT_EQ(tdesc.documents,
        (std::vector<std::string> { "target.xml", "aarch64-core.xml", "sve-registers.xml", "system-registers.xml" }));
    const RegisterInfo* pc = tdesc.pc();
    ASSERT_NE(pc, nullptr);
    EXPECT_EQ(pc->name, "pc");
    EXPECT_EQ(pc->regnum, 32u); // x0..x30, sp, pc: no regnum= in aarch64-core.xml
    EXPECT_EQ(pc->offset, 256u);
    EXPECT_EQ(tdesc.find("cpsr")->regnum, 33u);
}

TEST(TargetDescription, QemuArcHasPcAt36AfterPcl)
{
    auto tdesc = fromTranscript("qemu-arc");
    EXPECT_EQ(tdesc.architecture, "arc:ARCv2");
    EXPECT_EQ(tdesc.documents, (std::vector<std::string> { "target.xml", "arc-v2-core.xml", "arc-v2-aux.xml" }));
    const RegisterInfo* pc = tdesc.pc();
    ASSERT_NE(pc, nullptr);
    EXPECT_EQ(pc->name, "pc");
    EXPECT_EQ(pc->regnum, 36u);
    EXPECT_EQ(pc->bitsize, 32u);
    EXPECT_EQ(pc->offset, 144u); // beyond qemu-arc's 144-byte `g` reply: only `p` reads it
    EXPECT_EQ(tdesc.find("pcl")->regnum, 35u);
}

TEST(TargetDescription, ImplicitNumbersFollowThePreviousRegisterInDocumentOrder)
{
    std::map<std::string, std::string> docs {
        { "target.xml",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
            "  <architecture>test</architecture>\n  <!-- a comment -->\n"
            "  <xi:include href=\"a.xml\"/>\n  <xi:include href=\"b.xml\"/>\n</target>\n" },
        { "a.xml",
            "<feature name=\"a\"><reg name=\"r0\" bitsize=\"32\"/><reg name=\"r1\" bitsize=\"32\"/>"
            "<reg name=\"x\" bitsize=\"64\" regnum=\"10\"/></feature>" },
        { "b.xml",
            "<feature name=\"b\"><reg name=\"pc\" bitsize=\"32\"/><reg name=\"lo\" bitsize=\"16\" "
            "regnum=\"5\"/></feature>" },
    };
    auto tdesc = readTargetDescription("target.xml", fetcherOf(docs));
    ASSERT_TRUE(tdesc.ok()) << tdesc.error().str();
    std::vector<std::pair<std::string, unsigned>> got;
    for (const auto& r : tdesc->registers)
        got.emplace_back(r.name, r.regnum);
    EXPECT_EQ(got,
        (std::vector<std::pair<std::string, unsigned>> {
            { "r0", 0 }, { "r1", 1 }, { "lo", 5 }, { "x", 10 }, { "pc", 11 } }));
    EXPECT_EQ(tdesc->pc()->offset, 4u + 4 + 2 + 8);
    EXPECT_EQ(tdesc->pc()->feature, "b");
    EXPECT_EQ(tdesc->registerBytes(), 22u);
}

TEST(TargetDescription, ErrorsNameTheDocumentAndLine)
{
    auto check = [](std::map<std::string, std::string> docs, const std::string& expected) {
        auto tdesc = readTargetDescription("target.xml", fetcherOf(std::move(docs)));
        ASSERT_FALSE(tdesc.ok()) << expected;
        EXPECT_EQ(tdesc.error().str(), expected);
    };
    check({ { "target.xml", "<target>\n<reg name=\"a\"/>\n</target>" } }, "target.xml:2: reg a: bad bitsize");
    check({ { "target.xml", "<target>\n\n<reg bitsize=\"8\"/></target>" } }, "target.xml:3: reg without a name");
    check({ { "target.xml", "<target>\n<xi:include href=\"f.xml\"/></target>" },
              { "f.xml", "<feature>\n<reg name=\"a\" bitsize=\"8\" regnum=\"x\"/></feature>" } },
        "f.xml:2: reg a: bad regnum");
    check({ { "target.xml", "<target>\n<feature>\n</target>" } }, "target.xml:3: expected </feature>");
    check({ { "target.xml", "<target><!-- never closed\n</target>" } }, "target.xml:1: unterminated comment");
    check({ { "target.xml", "<target><xi:include href=\"target.xml\"/></target>" } },
        "target.xml: too many nested or included documents");
    check({ { "target.xml", "<target><xi:include href=\"gone.xml\"/></target>" } }, "gone.xml: no such document");
    check({ { "target.xml",
              "<target><reg name=\"a\" bitsize=\"8\" regnum=\"1\"/><reg name=\"b\" bitsize=\"8\" "
              "regnum=\"1\"/></target>" } },
        "target.xml: registers a and b share number 1");
    check(
        { { "target.xml", "<target><architecture>x</architecture></target>" } }, "target.xml: no registers described");
}

TEST(TargetDescription, XmlEntitiesAndAttributeQuotes)
{
    auto root = parseXml("<a x='1' y=\"&lt;&#65;&#x42;&amp;\">t&gt;</a>", "d.xml");
    ASSERT_TRUE(root.ok()) << root.error().str();
    EXPECT_EQ(*root->attribute("x"), "1");
    EXPECT_EQ(*root->attribute("y"), "<AB&");
    EXPECT_EQ(root->text, "t>");
    EXPECT_FALSE(parseXml("<a>&bogus;</a>", "d.xml").ok());
    EXPECT_FALSE(parseXml("<a></a><b/>", "d.xml").ok());
    EXPECT_FALSE(parseXml("<a x=1/>", "d.xml").ok());
}

TEST(TargetDescription, UserFileWithRelativeIncludes)
{
    auto dir = std::filesystem::temp_directory_path() / ("ppe-tdesc-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "sub");
    std::ofstream(dir / "sub" / "board.xml") << "<target><architecture>arc:HS</architecture>"
                                                "<xi:include href=\"core.xml\"/></target>";
    std::ofstream(dir / "sub" / "core.xml")
        << "<feature name=\"org.gnu.gdb.arc.core\">"
           "<reg name=\"r0\" bitsize=\"32\"/><reg name=\"pc\" bitsize=\"32\" regnum=\"64\"/></feature>";
    auto tdesc = readTargetDescriptionFile((dir / "sub" / "board.xml").string());
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(tdesc.ok()) << tdesc.error().str();
    EXPECT_EQ(tdesc->architecture, "arc:HS");
    EXPECT_EQ(tdesc->pc()->regnum, 64u); // OpenOCD's ARC numbering
    EXPECT_EQ(tdesc->pc()->offset, 4u);
    EXPECT_FALSE(readTargetDescriptionFile((dir / "missing.xml").string()).ok());
}

// Issue 32: an include naming a device or a FIFO read it without end (or waited forever).
TEST(TargetDescription, IncludesOfDevicesAndFifosAreRefusedAtOnce)
{
    auto dir = std::filesystem::temp_directory_path() / ("ppe-tdesc-dev-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ASSERT_EQ(::mkfifo((dir / "fifo.xml").c_str(), 0600), 0);
    for (const char* include : { "/dev/zero", "fifo.xml" }) {
        std::ofstream(dir / "board.xml") << "<target><xi:include href=\"" << include << "\"/></target>";
        auto tdesc = readTargetDescriptionFile((dir / "board.xml").string());
        ASSERT_FALSE(tdesc.ok()) << include;
        EXPECT_NE(tdesc.error().message.find("not a regular file"), std::string::npos) << tdesc.error().str();
    }
    std::filesystem::remove_all(dir);
}
