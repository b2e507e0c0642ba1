// Result<DebugInfo> as bytes, for the isolated reader's hand-over from its child process.
//
// Each struct that crosses over names its members once, in Fields<T>::visit; the writer and the
// reader both walk that list, so they cannot disagree. test/unit/debuginfo/serialize_test.cc
// checks that each list holds as many fields as the struct has members, so a member added to a
// struct but not here fails the test.
#pragma once

#include "ppe/debuginfo/debug_info.h"

#include <optional>
#include <string>
#include <string_view>

namespace ppe::debuginfo {

// Fields<T>::visit(value, visitor) calls visitor(field, ...) with every member of `value`, in the
// order they are declared.
template <class T> struct Fields;

template <> struct Fields<AddressRange> {
    template <class S, class V> static void visit(S& s, V&& v) { v(s.start, s.end); }
};

template <> struct Fields<CompileUnit> {
    template <class S, class V> static void visit(S& s, V&& v)
    {
        v(s.name, s.compDir, s.producer, s.ranges, s.detailed);
    }
};

template <> struct Fields<Function> {
    template <class S, class V> static void visit(S& s, V&& v)
    {
        v(s.name, s.linkageName, s.ranges, s.unit, s.line, s.fromSymbols, s.fromFrames);
    }
};

template <> struct Fields<LineRange> {
    template <class S, class V> static void visit(S& s, V&& v)
    {
        v(s.start, s.end, s.file, s.line, s.function, s.inlined);
    }
};

template <> struct Fields<Segment> {
    template <class S, class V> static void visit(S& s, V&& v)
    {
        v(s.fileOffset, s.address, s.fileSize, s.memSize, s.executable);
    }
};

template <> struct Fields<DebugInfo> {
    template <class S, class V> static void visit(S& s, V&& v)
    {
        v(s.path, s.debugPath, s.buildId, s.segments, s.units, s.functions, s.files, s.lines, s.warnings);
    }
};

template <> struct Fields<Error> {
    template <class S, class V> static void visit(S& s, V&& v) { v(s.file, s.line, s.message); }
};

std::string serialize(const Result<DebugInfo>& result);

// The Result that `bytes` hold, or nothing when they are cut short or damaged.
std::optional<Result<DebugInfo>> deserialize(std::string_view bytes);

} // namespace ppe::debuginfo
