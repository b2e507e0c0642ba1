// Lambdas and templates, whose names nm -C, c++filt and perf print the GNU way:
// main::{lambda(text::Piece)#2}::operator()(text::Piece) const.
#include <cstdio>
#include <string>
#include <vector>

namespace text {
struct Piece {
    const char* data;
    size_t size;
};
} // namespace text

template <class F> void forEachLine(const std::vector<std::string>& lines, F f)
{
    for (const std::string& line : lines)
        f(text::Piece { line.data(), line.size() });
}

template <class T> T twice(T x) { return x + x; }

int main(int argc, char**)
{
    const std::vector<std::string> lines = { "one", "two", "three" };
    size_t total = 0;
    forEachLine(lines, [&](text::Piece p) { total += p.size; });
    forEachLine(lines, [&](text::Piece p) { total += p.data[0] == 't'; });
    total += size_t(twice<long>(argc) + twice<double>(argc));
    std::printf("%zu\n", total);
    return 0;
}
