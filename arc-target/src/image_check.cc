#include "ppe/arc/image_check.h"

#include "ppe/arc/libraries.h"
#include "ppe/gdbremote/hex.h"

#include <algorithm>
#include <elf.h>

namespace ppe::arc {

using gdbremote::hexNumber;
using gdbremote::Status;
using gdbremote::toHex;

std::vector<uint16_t> machinesOf(const std::string& architecture)
{
    const auto is = [&](const char* prefix) { return architecture.rfind(prefix, 0) == 0; };
    if (is("i386:x86-64"))
        return { EM_X86_64 };
    if (is("i386"))
        return { EM_386 };
    if (is("aarch64"))
        return { EM_AARCH64 };
    if (is("arm"))
        return { EM_ARM };
    if (is("riscv"))
        return { EM_RISCV };
    if (is("arc"))
        return { EM_ARC_COMPACT, EM_ARCV2 };
    if (is("powerpc:common64") || is("rs6000:"))
        return { EM_PPC64 };
    return {};
}

namespace {

    // `length` bytes of the target's memory at `address`; nothing when the server refuses.
    std::optional<std::string> readMemory(gdbremote::Session& session, uint64_t address, size_t length)
    {
        auto reply = session.request("m" + hexNumber(address) + "," + hexNumber(length));
        if (!reply || reply->size() != 2 * length)
            return std::nullopt;
        return gdbremote::fromHex(*reply);
    }

    // A word of an ELF structure as the target's memory holds it, in the ELF's byte order.
    uint64_t field(std::string_view bytes, size_t offset, size_t size, bool bigEndian)
    {
        if (offset + size > bytes.size())
            return 0;
        return gdbremote::registerValue(bytes.substr(offset, size), bigEndian).value_or(0);
    }

    // NT_GNU_BUILD_ID of the notes in `notes`, "" when none.
    std::string buildIdIn(std::string_view notes, bool bigEndian)
    {
        for (size_t at = 0; at + 12 <= notes.size();) {
            const uint64_t nameSize = field(notes, at, 4, bigEndian), descSize = field(notes, at + 4, 4, bigEndian);
            const size_t desc = at + 12 + ((nameSize + 3) & ~size_t(3));
            if (nameSize > 256 || descSize > 256 || desc + descSize > notes.size())
                return {};
            if (field(notes, at + 8, 4, bigEndian) == NT_GNU_BUILD_ID && nameSize == 4
                && notes.substr(at + 12, 3) == "GNU")
                return std::string(notes.substr(desc, descSize));
            at = desc + ((descSize + 3) & ~size_t(3));
        }
        return {};
    }

    // The build id of the program the target runs, from its own program headers (AT_PHDR and
    // AT_PHNUM of its auxiliary vector; PT_PHDR gives their load bias) and PT_NOTE segments in
    // its memory; "" when unknown.
    std::string targetBuildId(gdbremote::Session& session, std::string_view auxv, const ElfImage& elf)
    {
        const uint64_t phdr = auxvValue(auxv, AT_PHDR, elf.is64, elf.bigEndian).value_or(0);
        const uint64_t count = auxvValue(auxv, AT_PHNUM, elf.is64, elf.bigEndian).value_or(0);
        const size_t size = elf.is64 ? 56 : 32, word = elf.is64 ? 8 : 4;
        auto table = phdr && count && count < 64 ? readMemory(session, phdr, count * size) : std::nullopt;
        if (!table)
            return {};
        const auto get = [&](size_t p, size_t at64, size_t at32) {
            return field(*table, p + (elf.is64 ? at64 : at32), word, elf.bigEndian);
        };
        uint64_t bias = 0;
        for (size_t p = 0; p < table->size(); p += size)
            if (field(*table, p, 4, elf.bigEndian) == PT_PHDR)
                bias = phdr - get(p, 16, 8);
        for (size_t p = 0; p < table->size(); p += size) {
            const uint64_t memSize = get(p, 40, 20);
            if (field(*table, p, 4, elf.bigEndian) != PT_NOTE || memSize > 4096)
                continue;
            auto notes = readMemory(session, get(p, 16, 8) + bias, size_t(memSize));
            if (std::string id = notes ? buildIdIn(*notes, elf.bigEndian) : std::string(); !id.empty())
                return id;
        }
        return {};
    }

    // The refusal: both entries, and the ELF's build id (the target's is added where known).
    Error notTheProgram(
        const gdbremote::Session& session, const ElfImage& elf, uint64_t targetEntry, const std::string& why)
    {
        std::string text = elf.path + " is not the program the target runs: " + why + " (the ELF's entry 0x"
            + hexNumber(elf.entry)
            + (elf.shared ? " plus the load bias" : ", load bias 0 for a fixed-address executable")
            + "; the target's AT_ENTRY " + (targetEntry ? "0x" + hexNumber(targetEntry) : std::string("unknown")) + ")";
        if (!elf.buildId.empty())
            text += "; build id of the ELF " + toHex(elf.buildId) + ", of the target unknown";
        return Error { session.peer(), 0, text + ": give the target's own executable with --elf" };
    }

    Status checkMachine(const gdbremote::Session& session, const ElfImage& elf, const std::string& architecture)
    {
        const std::vector<uint16_t> machines = machinesOf(architecture);
        if (machines.empty() || std::find(machines.begin(), machines.end(), elf.machine) != machines.end())
            return std::monostate {};
        return Error { session.peer(), 0,
            elf.path + " is an ELF for " + machineName(elf.machine) + " (e_machine " + std::to_string(elf.machine)
                + ") but the target is " + architecture + " (" + machineName(machines.back())
                + ", from its target description): give the target's own executable with --elf" };
    }

    // The target's auxiliary vector; "" when the server has none.
    Result<std::string> targetAuxv(gdbremote::Session& session)
    {
        if (!session.features().auxvRead)
            return std::string();
        return session.readXfer("auxv", "");
    }

    // The build id at its address, else the bytes at the entry point, compared with the file's.
    Status checkContents(gdbremote::Session& session, const ElfImage& elf, uint64_t entry, uint64_t bias)
    {
        if (!elf.buildId.empty() && elf.buildIdAddress) {
            auto there = readMemory(session, elf.buildIdAddress + bias, elf.buildId.size());
            if (there && *there != elf.buildId)
                return notTheProgram(session, elf, entry, "the build ids differ");
            if (there)
                return std::monostate {};
        }
        if (elf.entryBytes.empty())
            return std::monostate {};
        auto code = readMemory(session, elf.entry + bias, elf.entryBytes.size());
        if (code && *code != elf.entryBytes)
            return notTheProgram(session, elf, entry,
                "the code at the entry point differs (target " + toHex(*code) + ", ELF " + toHex(elf.entryBytes) + ")");
        return std::monostate {};
    }

    Status checkPlace(gdbremote::Session& session, const ElfImage& elf, uint64_t entry, uint64_t bias)
    {
        if (entry && !elf.shared && entry != elf.entry)
            return notTheProgram(session, elf, entry, "the entry points differ");
        if (bias % 4096 != 0)
            return notTheProgram(session, elf, entry, "the load bias 0x" + hexNumber(bias) + " is not page-aligned");
        return checkContents(session, elf, entry, bias);
    }

} // namespace

Result<uint64_t> checkImage(gdbremote::Session& session, const ElfImage& elf, const std::string& architecture)
{
    if (auto machine = checkMachine(session, elf, architecture); !machine)
        return machine.error();
    auto auxv = targetAuxv(session);
    if (!auxv)
        return auxv.error();
    const uint64_t entry = auxvEntry(*auxv, elf.is64, elf.bigEndian).value_or(0);
    if (elf.shared && !entry)
        return Error { session.peer(), 0,
            elf.path + " is position-independent and the server gives no AT_ENTRY (qXfer:auxv:read) to place it" };
    const uint64_t bias = elf.shared ? entry - elf.entry : 0;
    auto placed = checkPlace(session, elf, entry, bias);
    if (placed)
        return bias;
    // Refused: name the target's own build id too, where its memory shows it.
    Error refusal = placed.error();
    const std::string unknown = "of the target unknown";
    const size_t at = refusal.message.find(unknown);
    if (const std::string id = targetBuildId(session, *auxv, elf); !id.empty()) {
        if (at != std::string::npos)
            refusal.message.replace(at, unknown.size(), "of the target " + toHex(id));
        else
            refusal.message += " (the target's build id " + toHex(id) + ")";
    }
    return refusal;
}

} // namespace ppe::arc
