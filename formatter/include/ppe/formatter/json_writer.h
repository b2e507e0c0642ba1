// A small JSON writer for the json renderer: objects, arrays, strings escaped per RFC 8259 (control
// characters as \uXXXX, bytes that are not UTF-8 as U+FFFD), numbers exact (shortest round trip).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ppe::formatter {

// `text` as a JSON string, quotes included. Source files and names are not always UTF-8 (Latin-1
// comments, mangled bytes): each byte that does not begin a valid UTF-8 sequence becomes U+FFFD,
// so the output always parses.
std::string jsonString(std::string_view text);

// A double as JSON: the shortest text that reads back to the same value; NaN and infinities
// (which JSON cannot hold) as null.
std::string jsonNumber(double value);

// Writes one JSON value into `out`, indented by two spaces per level. The caller nests begin/end
// calls correctly; inside an object each value follows a key().
class JsonWriter {
public:
    explicit JsonWriter(std::string& out)
        : m_out(out)
    {
    }

    void beginObject() { open('{'); }
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void endArray() { close(']'); }
    void key(std::string_view name);
    void null() { scalar("null"); }
    void value(std::string_view text) { scalar(jsonString(text)); }
    void value(const char* text) { value(std::string_view(text)); }
    void value(const std::string& text) { value(std::string_view(text)); }

    template <class T>
    requires std::is_arithmetic_v<T>
    void value(T number)
    {
        if constexpr (std::is_same_v<T, bool>)
            scalar(number ? "true" : "false");
        else if constexpr (std::is_floating_point_v<T>)
            scalar(jsonNumber(double(number)));
        else if constexpr (std::is_signed_v<T>)
            scalar(std::to_string(int64_t(number)));
        else
            scalar(std::to_string(uint64_t(number)));
    }

    // key(name) and value(v) in one call.
    template <class T> void field(std::string_view name, const T& v)
    {
        key(name);
        value(v);
    }

private:
    void open(char bracket);
    void close(char bracket);
    void scalar(std::string_view text);
    void newItem(); // the comma and the line break before an array item or a key

    std::string& m_out;
    std::vector<bool> m_empty; // per open object or array: nothing in it yet
    bool m_afterKey = false;
};

} // namespace ppe::formatter
