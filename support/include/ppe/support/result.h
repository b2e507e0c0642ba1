// Errors as values for the host-side parsers and libraries: the program's edge prints them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <variant>

namespace ppe {

// One problem with one input: "FILE:LINE: MESSAGE" (LINE omitted when 0). Messages start lower-case
// and end without a period.
struct Error {
    std::string file;
    std::size_t line = 0;
    std::string message;

    std::string str() const
    {
        // Appended piece by piece: gcc 12's -Wrestrict misfires on `":" + std::to_string(line)`
        // at -O2/-O3 (GCC bug 105329).
        std::string out = file;
        if (line)
            out.append(":").append(std::to_string(line));
        if (!out.empty())
            out.append(": ");
        return out.append(message);
    }
};

// A value or the error that prevented it.
template <class T> class Result {
public:
    Result(T value)
        : m_v(std::move(value))
    {
    }
    Result(Error error)
        : m_v(std::move(error))
    {
    }

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

} // namespace ppe
