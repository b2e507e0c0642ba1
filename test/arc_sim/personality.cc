#include "personality.h"

#include "ppe/arc/aux_registers.h"

namespace ppe::arc::sim {

namespace {

    const char* const kCoreNames[] = { "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12",
        "r13", "r14", "r15", "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "gp", "fp", "sp",
        "ilink", "r30", "blink" };

    std::string typeOf(uint32_t core)
    {
        return core >= 26 && core <= 28 ? "data_ptr" : core == 29 || core == 31 ? "code_ptr" : "int";
    }

    // r0..r31 from `first`; then the personality's extra core registers.
    void addCore(Layout& l, const std::string& feature)
    {
        for (uint32_t i = 0; i < 32; ++i)
            l.registers.push_back({ SimRegister::Kind::Core, kCoreNames[i], i, i, feature, typeOf(i) });
    }

    void add(Layout& l, SimRegister::Kind kind, const std::string& name, unsigned regnum, const std::string& feature,
        const std::string& type = "int", uint32_t index = 0)
    {
        l.registers.push_back({ kind, name, regnum, index, feature, type });
    }

    // The <reg> lines of `feature`, with regnum= where `explicitNumbers` (or where it is not one more
    // than the previous register's).
    std::string features(const Layout& l, const std::vector<std::string>& names, bool explicitNumbers)
    {
        std::string xml;
        unsigned next = 0;
        for (const std::string& feature : names) {
            xml += "<feature name=\"" + feature + "\">\n";
            for (const SimRegister& r : l.registers) {
                if (r.feature != feature)
                    continue;
                const bool number = explicitNumbers || r.regnum != next;
                xml += "  <reg name=\"" + r.name + "\" bitsize=\"32\""
                    + (number ? " regnum=\"" + std::to_string(r.regnum) + "\"" : std::string()) + " type=\"" + r.type
                    + "\" group=\"general\"/>\n";
                next = r.regnum + 1;
            }
            xml += "</feature>\n";
        }
        return xml;
    }

    const std::string kHead = "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n";
    const std::string kArch = "<architecture>arc:ARCv2</architecture>\n";

    Layout openocd(bool pctFeature)
    {
        Layout l;
        addCore(l, "org.gnu.gdb.arc.core.v2");
        add(l, SimRegister::Kind::Plain, "lp_count", 60, "org.gnu.gdb.arc.core.v2", "uint32");
        add(l, SimRegister::Kind::Plain, "pcl", 63, "org.gnu.gdb.arc.core.v2", "code_ptr");
        add(l, SimRegister::Kind::Pc, "pc", 64, "org.gnu.gdb.arc.aux-minimal", "code_ptr");
        add(l, SimRegister::Kind::Status32, "status32", 65, "org.gnu.gdb.arc.aux-minimal");
        l.inG = l.registers.size();
        std::vector<std::string> names { "org.gnu.gdb.arc.core.v2", "org.gnu.gdb.arc.aux-minimal" };
        if (pctFeature) {
            const uint32_t pct[] = { aux::kPctBuild, aux::kCcBuild, aux::kCcIndex, aux::kCcName0, aux::kCcName1,
                aux::kPctCountL, aux::kPctCountH, aux::kPctSnapL, aux::kPctSnapH, aux::kPctConfig, aux::kPctControl,
                aux::kPctIndex, aux::kPctRangeL, aux::kPctRangeH, aux::kPctIntCntL, aux::kPctIntCntH, aux::kPctIntCtrl,
                aux::kPctIntAct };
            unsigned regnum = 66;
            for (uint32_t address : pct)
                add(l, SimRegister::Kind::Aux, std::string(*auxName(address)), regnum++, "org.gnu.gdb.arc.pct",
                    "uint32", address);
            names.push_back("org.gnu.gdb.arc.pct");
        }
        l.documents.push_back(
            { "target.xml", kHead + "<target version=\"1.0\">\n" + kArch + features(l, names, true) + "</target>\n" });
        return l;
    }

    void qemuAux(Layout& l, unsigned regnum, const std::string& feature)
    {
        add(l, SimRegister::Kind::Pc, "pc", regnum, feature, "code_ptr");
        add(l, SimRegister::Kind::Status32, "status32", regnum + 1, feature);
        for (const char* name : { "lp_start", "lp_end", "bta", "timer_build", "timer_count0", "timer_ctrl0" })
            add(l, SimRegister::Kind::Plain, name, ++regnum + 1, feature, "uint32");
    }

    Layout qemu()
    {
        Layout l;
        addCore(l, "org.gnu.gdb.arc.core");
        add(l, SimRegister::Kind::Plain, "accl", 32, "org.gnu.gdb.arc.core");
        add(l, SimRegister::Kind::Plain, "acch", 33, "org.gnu.gdb.arc.core");
        add(l, SimRegister::Kind::Plain, "lp_count", 34, "org.gnu.gdb.arc.core", "uint32");
        add(l, SimRegister::Kind::Plain, "pcl", 35, "org.gnu.gdb.arc.core", "code_ptr");
        l.inG = l.registers.size(); // qemu-arc's `g` stops before pc: only `p` reads it
        qemuAux(l, 36, "org.gnu.gdb.arc.aux");
        l.documents.push_back({ "target.xml",
            "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target>" + kArch
                + "<xi:include href=\"arc-v2-core.xml\"/><xi:include href=\"arc-v2-aux.xml\"/></target>" });
        l.documents.push_back({ "arc-v2-core.xml",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
                + features(l, { "org.gnu.gdb.arc.core" }, false) });
        l.documents.push_back({ "arc-v2-aux.xml",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n"
                + features(l, { "org.gnu.gdb.arc.aux" }, false) });
        return l;
    }

    Layout gdbserver()
    {
        Layout l;
        addCore(l, "org.gnu.gdb.arc.core");
        add(l, SimRegister::Kind::Plain, "lp_count", 32, "org.gnu.gdb.arc.core", "uint32");
        add(l, SimRegister::Kind::Plain, "pcl", 33, "org.gnu.gdb.arc.core", "code_ptr");
        add(l, SimRegister::Kind::Pc, "pc", 34, "org.gnu.gdb.arc.aux", "code_ptr");
        add(l, SimRegister::Kind::Status32, "status32", 35, "org.gnu.gdb.arc.aux");
        for (const char* name : { "lp_start", "lp_end", "bta" })
            add(l, SimRegister::Kind::Plain, name, unsigned(l.registers.size()), "org.gnu.gdb.arc.aux", "uint32");
        l.inG = l.registers.size();
        l.documents.push_back({ "target.xml",
            kHead + "<target>\n" + kArch + "<osabi>GNU/Linux</osabi>\n"
                + features(l, { "org.gnu.gdb.arc.core", "org.gnu.gdb.arc.aux" }, false) + "</target>\n" });
        return l;
    }

} // namespace

const char* personalityName(Personality p)
{
    return p == Personality::OpenOcd ? "openocd" : p == Personality::Qemu ? "qemu" : "gdbserver";
}

bool parsePersonality(const std::string& name, Personality& out)
{
    for (Personality p : { Personality::OpenOcd, Personality::Qemu, Personality::Gdbserver }) {
        if (name == personalityName(p)) {
            out = p;
            return true;
        }
    }
    return false;
}

Layout makeLayout(Personality p, bool pctFeature)
{
    return p == Personality::OpenOcd ? openocd(pctFeature) : p == Personality::Qemu ? qemu() : gdbserver();
}

Replies repliesOf(Personality p)
{
    Replies r;
    switch (p) {
    case Personality::OpenOcd:
        r.supported = "PacketSize=4000;qXfer:memory-map:read-;qXfer:features:read+;QStartNoAckMode+";
        r.noAck = r.monitor = r.readsWhileRunning = r.haltAtEnd = true;
        break;
    case Personality::Qemu:
        r.supported = "PacketSize=1000;qXfer:features:read+;qXfer:auxv:read+;vContSupported+;multiprocess+";
        r.vCont = "vCont;c;C;s;S";
        r.multiprocess = true;
        r.binaryWrite = r.codeWritable = false;
        break;
    case Personality::Gdbserver:
        // Debian gdbserver 13.1's list, less what this stand-in does not do (libraries, threads
        // documents, non-stop, tracepoints, fork events).
        r.supported = "PacketSize=47ff;QPassSignals+;QProgramSignals+;qXfer:auxv:read+;qXfer:features:read+;"
                      "QStartNoAckMode+;multiprocess+;swbreak+;hwbreak+;vContSupported+";
        r.vCont = "vCont;c;C;t;s;S;r";
        r.noAck = r.multiprocess = r.monitor = r.readsWhileRunning = true;
        r.registerPackets = false;
        break;
    }
    return r;
}

} // namespace ppe::arc::sim
