#include "serialize.h"

#include <cstring>
#include <type_traits>
#include <vector>

namespace ppe::debuginfo {

namespace {

    template <class T> struct IsVector : std::false_type {
    };
    template <class T> struct IsVector<std::vector<T>> : std::true_type {
    };

    // Numbers as their bytes, strings and vectors as a uint64_t count and their elements, structs
    // as their Fields.
    class Writer {
    public:
        template <class T> void put(const T& v)
        {
            if constexpr (std::is_arithmetic_v<T>) {
                m_bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                put(uint64_t(v.size()));
                m_bytes += v;
            } else if constexpr (IsVector<T>::value) {
                put(uint64_t(v.size()));
                for (const auto& item : v)
                    put(item);
            } else {
                Fields<T>::visit(v, [&](const auto&... fields) { (put(fields), ...); });
            }
        }
        std::string& bytes() { return m_bytes; }

    private:
        std::string m_bytes;
    };

    // The Writer's inverse: false when the bytes end too soon or hold an impossible count.
    class Reader {
    public:
        explicit Reader(std::string_view bytes)
            : m_bytes(bytes)
        {
        }
        template <class T> bool get(T& v)
        {
            if constexpr (std::is_arithmetic_v<T>) {
                return raw(&v, sizeof v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                uint64_t n = 0;
                if (!get(n) || n > left())
                    return false;
                v.assign(m_bytes.substr(m_at, n));
                m_at += n;
                return true;
            } else if constexpr (IsVector<T>::value) {
                uint64_t n = 0;
                if (!get(n) || n > left()) // every element takes a byte at least
                    return false;
                v.resize(n);
                for (auto& item : v) {
                    if (!get(item))
                        return false;
                }
                return true;
            } else {
                bool ok = true;
                Fields<T>::visit(v, [&](auto&... fields) { ok = (get(fields) && ...); });
                return ok;
            }
        }
        bool done() const { return m_at == m_bytes.size(); }

    private:
        size_t left() const { return m_bytes.size() - m_at; }
        bool raw(void* to, size_t size)
        {
            if (left() < size)
                return false;
            std::memcpy(to, m_bytes.data() + m_at, size);
            m_at += size;
            return true;
        }

        std::string_view m_bytes;
        size_t m_at = 0;
    };

} // namespace

std::string serialize(const Result<DebugInfo>& result)
{
    Writer w;
    w.put(uint8_t(result.ok()));
    if (!result.ok()) {
        w.put(result.error());
        return std::move(w.bytes());
    }
    const DebugInfo& d = result.value();
    w.bytes().reserve(4096 + d.lines.size() * sizeof(LineRange) + d.functions.size() * 128 + d.files.size() * 96
        + d.units.size() * 256);
    w.put(d);
    return std::move(w.bytes());
}

std::optional<Result<DebugInfo>> deserialize(std::string_view bytes)
{
    Reader r(bytes);
    uint8_t ok = 0;
    if (!r.get(ok))
        return std::nullopt;
    if (!ok) {
        Error e;
        if (!r.get(e) || !r.done())
            return std::nullopt;
        return Result<DebugInfo>(std::move(e));
    }
    DebugInfo d;
    if (!r.get(d) || !r.done())
        return std::nullopt;
    return Result<DebugInfo>(std::move(d));
}

} // namespace ppe::debuginfo
