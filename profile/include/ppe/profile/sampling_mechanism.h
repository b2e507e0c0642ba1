// A profile's `mechanism` field: its text as written and the mechanism that text names, parsed
// once when the field is set (issue 38). A name this build does not know (a profile from a newer
// collector) is Mechanism::Unknown and still reads and prints as written.
#pragma once

#include "ppe/core/mechanism.h"

#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace ppe {

class SamplingMechanism {
public:
    SamplingMechanism() = default;
    SamplingMechanism(std::string name)
        : m_name(std::move(name))
        , m_kind(parseMechanism(m_name.c_str()))
    {
    }
    SamplingMechanism(const char* name)
        : SamplingMechanism(std::string(name))
    {
    }
    explicit SamplingMechanism(Mechanism kind)
        : m_name(mechanismName(kind))
        , m_kind(kind)
    {
    }

    Mechanism kind() const { return m_kind; }
    const std::string& name() const { return m_name; }
    // The text as written, wherever the profile's name is printed or compared as text.
    operator std::string_view() const { return m_name; }

    bool operator==(Mechanism kind) const { return m_kind == kind; }
    bool operator==(const SamplingMechanism& other) const { return m_name == other.m_name; }
    bool operator==(std::string_view name) const { return m_name == name; }
    bool operator==(const char* name) const { return m_name == name; }

private:
    std::string m_name;
    Mechanism m_kind = Mechanism::Unknown; // "" names none this build knows
};

inline std::ostream& operator<<(std::ostream& out, const SamplingMechanism& m) { return out << m.name(); }

} // namespace ppe
