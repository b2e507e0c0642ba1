// A value that starts as `kInitial` while its bytes start as zero. A global of the collector whose
// members all start as zero goes to .bss; one non-zero initialiser (`int fd = -1`) puts the whole
// object in .data, copied into the pages of every process the collector is loaded into.
// The value is kept XOR kInitial: reading and writing it cost one instruction, no allocation, no
// lock, so it may be used wherever the plain value was (signal handlers, forked children).
#pragma once

namespace ppe {

// Converts to and from T implicitly: it stands in for a plain T member.
template <typename T, T kInitial> class Initially {
public:
    constexpr Initially() = default;
    constexpr Initially(T value)
        : m_bits(T(value ^ kInitial))
    {
    }
    constexpr operator T() const { return T(m_bits ^ kInitial); }

private:
    T m_bits {};
};

} // namespace ppe
