// The isolated reader's serializer: every member of every struct that crosses over is written and
// read back. A member added to a struct but not to its Fields<T> list fails FieldListsNameEveryMember;
// a field written or read wrongly fails the round trips.
#include "serialize.h"

#include <gtest/gtest.h>

#include <tuple>
#include <type_traits>
#include <utility>

namespace ppe::debuginfo {
namespace {

    // Converts to any member type: T{AnyField{}, ...} compiles for up to as many initializers as
    // the aggregate T has members.
    struct AnyField {
        template <class T> operator T() const;
    };

    template <class T, class Indexes, class = void> struct BraceInitializable : std::false_type {
    };
    template <class T, size_t... I>
    struct BraceInitializable<T, std::index_sequence<I...>, std::void_t<decltype(T { (void(I), AnyField {})... })>>
        : std::true_type {
    };

    // The number of members of the aggregate T.
    template <class T, size_t N = 0> constexpr size_t memberCount()
    {
        static_assert(std::is_aggregate_v<T>);
        if constexpr (BraceInitializable<T, std::make_index_sequence<N + 1>>::value)
            return memberCount<T, N + 1>();
        else
            return N;
    }

    // The number of fields Fields<T> names.
    template <class T> size_t fieldCount()
    {
        T value {};
        size_t n = 0;
        Fields<T>::visit(value, [&](auto&... fields) { n = sizeof...(fields); });
        return n;
    }

    // The members of `v` as a tuple of references, through a structured binding (which must name
    // every member: a struct whose member count changed does not compile here).
    template <class T> auto members(const T& v)
    {
        constexpr size_t n = memberCount<T>();
        static_assert(n >= 2 && n <= 9, "add a case");
        if constexpr (n == 2) {
            const auto& [a, b] = v;
            return std::tie(a, b);
        } else if constexpr (n == 3) {
            const auto& [a, b, c] = v;
            return std::tie(a, b, c);
        } else if constexpr (n == 4) {
            const auto& [a, b, c, d] = v;
            return std::tie(a, b, c, d);
        } else if constexpr (n == 5) {
            const auto& [a, b, c, d, e] = v;
            return std::tie(a, b, c, d, e);
        } else if constexpr (n == 6) {
            const auto& [a, b, c, d, e, f] = v;
            return std::tie(a, b, c, d, e, f);
        } else if constexpr (n == 7) {
            const auto& [a, b, c, d, e, f, g] = v;
            return std::tie(a, b, c, d, e, f, g);
        } else if constexpr (n == 8) {
            const auto& [a, b, c, d, e, f, g, h] = v;
            return std::tie(a, b, c, d, e, f, g, h);
        } else {
            const auto& [a, b, c, d, e, f, g, h, i] = v;
            return std::tie(a, b, c, d, e, f, g, h, i);
        }
    }

} // namespace

// Member-wise equality, independent of Fields<T>: a member the serializer drops compares unequal.
bool operator==(const AddressRange& a, const AddressRange& b) { return members(a) == members(b); }
bool operator==(const CompileUnit& a, const CompileUnit& b) { return members(a) == members(b); }
bool operator==(const Function& a, const Function& b) { return members(a) == members(b); }
bool operator==(const LineRange& a, const LineRange& b) { return members(a) == members(b); }
bool operator==(const Segment& a, const Segment& b) { return members(a) == members(b); }
bool operator==(const DebugInfo& a, const DebugInfo& b) { return members(a) == members(b); }

namespace {

    TEST(DebuginfoSerialize, FieldListsNameEveryMember)
    {
        EXPECT_EQ(fieldCount<AddressRange>(), memberCount<AddressRange>());
        EXPECT_EQ(fieldCount<CompileUnit>(), memberCount<CompileUnit>());
        EXPECT_EQ(fieldCount<Function>(), memberCount<Function>());
        EXPECT_EQ(fieldCount<LineRange>(), memberCount<LineRange>());
        EXPECT_EQ(fieldCount<Segment>(), memberCount<Segment>());
        EXPECT_EQ(fieldCount<DebugInfo>(), memberCount<DebugInfo>());
        EXPECT_EQ(fieldCount<Error>(), memberCount<Error>());
    }

    // Every field set, each to a value of its own that is not the default.
    DebugInfo everyFieldSet()
    {
        DebugInfo d;
        d.path = "/bin/prog";
        d.debugPath = "/usr/lib/debug/prog.debug";
        d.buildId = "0123abcd";
        d.segments = { Segment { 0x1000, 0x401000, 0x2345, 0x3456, true }, Segment { 1, 2, 3, 4, false } };
        d.units = { CompileUnit {
                        "a.c", "/src", "GNU C17 12.2.0", { { 0x401000, 0x401100 }, { 0x402000, 0x402010 } }, false },
            CompileUnit { "b.f90", "/f", "GNU Fortran", {}, true } };
        d.functions = { Function { "ns::f(int)", "_ZN2ns1fEi", { { 0x401000, 0x401080 } }, 1, 42, true, false },
            Function { "main", "", { { 7, 9 } }, -1, 0, false, true } };
        d.files = { "/src/a.c", "/src/a.h" };
        d.lines
            = { LineRange { 0x401000, 0x401004, 1, 17, 3, true }, LineRange { 0x401004, 0x401008, 0, 0, -1, false } };
        d.warnings = { "/bin/prog: a warning", "" };
        return d;
    }

    TEST(DebuginfoSerialize, RoundTripKeepsEveryField)
    {
        const DebugInfo sent = everyFieldSet();
        std::optional<Result<DebugInfo>> received = deserialize(serialize(Result<DebugInfo>(sent)));
        ASSERT_TRUE(received && received->ok());
        EXPECT_TRUE(received->value() == sent);
        EXPECT_FALSE(received->value() == DebugInfo {}); // the comparison sees a difference
    }

    TEST(DebuginfoSerialize, RoundTripOfAnError)
    {
        std::optional<Result<DebugInfo>> received
            = deserialize(serialize(Result<DebugInfo>(Error { "/bin/prog", 12, "damaged ELF file" })));
        ASSERT_TRUE(received && !received->ok());
        EXPECT_EQ(received->error().file, "/bin/prog");
        EXPECT_EQ(received->error().line, 12u);
        EXPECT_EQ(received->error().message, "damaged ELF file");
    }

    TEST(DebuginfoSerialize, CutOrDamagedBytesAreRefused)
    {
        const std::string bytes = serialize(Result<DebugInfo>(everyFieldSet()));
        for (size_t size = 0; size < bytes.size(); ++size)
            EXPECT_FALSE(deserialize(std::string_view(bytes).substr(0, size))) << size;
        EXPECT_FALSE(deserialize(bytes + "x"));
        std::string huge = bytes;
        huge[1] = '\xff'; // the length of `path`
        EXPECT_FALSE(deserialize(huge));
    }

} // namespace
} // namespace ppe::debuginfo
