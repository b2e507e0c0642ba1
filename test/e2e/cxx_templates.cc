// C++ in map mode (issue 25): hot templates with long names in COMDAT sections (noipa keeps them
// out of line and uncloned), std::map whose _Rb_tree sections gas cuts in listings.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace very_long_namespace_name_for_regular_expressions {

struct SearchParameters {
    unsigned long seed;
    int rounds;
};

template <bool kCaseSensitive, bool kAnchored, bool kLongestMatch> class DeterministicFiniteAutomatonWithAVeryLongName {
public:
    __attribute__((noipa)) static unsigned long inlinedSearchLoopWithAVeryLongNameIndeed(SearchParameters* params)
    {
        unsigned long x = params->seed;
        for (int i = 0; i < params->rounds; ++i) {
            x = x * 6364136223846793005UL + (kCaseSensitive ? 1442695040888963407UL : 3UL);
            if (kAnchored)
                x ^= x >> 17;
            if (kLongestMatch)
                x += x << 5;
        }
        return x;
    }
};

__attribute__((noinline)) unsigned long searchAll(SearchParameters* params)
{
    unsigned long sum = 0;
    sum += DeterministicFiniteAutomatonWithAVeryLongName<true, false, true>::inlinedSearchLoopWithAVeryLongNameIndeed(
        params);
    sum += DeterministicFiniteAutomatonWithAVeryLongName<false, true, false>::inlinedSearchLoopWithAVeryLongNameIndeed(
        params);
    sum += DeterministicFiniteAutomatonWithAVeryLongName<true, true, true>::inlinedSearchLoopWithAVeryLongNameIndeed(
        params);
    return sum;
}

} // namespace very_long_namespace_name_for_regular_expressions

namespace rx = very_long_namespace_name_for_regular_expressions;

int main(int argc, char** argv)
{
    int rounds = argc > 1 ? std::atoi(argv[1]) : 100000000;
    std::map<std::pair<std::string, std::vector<std::string>>, std::map<std::string, int>> table;
    for (int i = 0; i < 100; ++i)
        table[{ std::to_string(i), { std::to_string(i * 7) } }][std::to_string(i)] = i;
    rx::SearchParameters params { table.size(), rounds };
    std::printf("%lu\n", rx::searchAll(&params));
    return 0;
}
