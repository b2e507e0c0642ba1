// The simulated ARC target's state behind the server (rsp_server.h): the machine (machine.h), its
// PCT model, the image's bytes as memory, and the registers the machine does not drive. One mutex
// guards it all: the server's thread runs the machine, a test reads the truth.
#pragma once

#include "machine.h"
#include "pct_model.h"
#include "personality.h"
#include "ppe/arc/elf_image.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace ppe::arc::sim {

struct TargetOptions {
    std::string elf; // the ARC image (its symbols and bytes)
    std::string tree; // the call-tree file
    testing::PctModel::Config pct;
};

class SimTarget {
public:
    static Result<std::unique_ptr<SimTarget>> load(const TargetOptions& options);

    std::mutex& mutex() { return m_mutex; }
    Machine& machine() { return *m_machine; }
    testing::PctModel& pct() { return m_pct; }
    const ElfImage& image() const { return m_image; }

    uint32_t readRegister(const SimRegister& reg);
    // False where the machine cannot take the value (a PC other than where it is).
    bool writeRegister(const SimRegister& reg, uint32_t value);
    // The bytes at [address, address + length) of the image or of what was written; nullopt where
    // any byte is outside both.
    std::optional<std::string> readMemory(uint32_t address, size_t length) const;
    bool inCode(uint32_t address, size_t length) const;
    bool writeMemory(uint32_t address, const std::string& bytes);

private:
    SimTarget(ElfImage image, std::string bytes, std::unique_ptr<Machine> machine, testing::PctModel::Config pct);

    std::mutex m_mutex;
    ElfImage m_image;
    std::string m_file; // the image file's bytes
    testing::PctModel m_pct;
    std::unique_ptr<Machine> m_machine;
    std::map<uint32_t, char> m_written; // bytes written over the image, and a data area
    std::map<std::string, uint32_t> m_plain; // registers the machine does not drive
};

} // namespace ppe::arc::sim
