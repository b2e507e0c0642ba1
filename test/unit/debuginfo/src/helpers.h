// Header code that the compiler inlines into its callers in cxx.cc.
#pragma once

template <class T>
struct Accumulator {
    T total {};
    void add(T value) { total += value * value + 1; } // inlined into sumSquares
};

inline int mixBits(int x)
{
    return (x ^ (x >> 3)) * 2654435761u; // inlined into sumSquares
}
