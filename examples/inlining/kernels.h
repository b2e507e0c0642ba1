// kernels.h: small numeric kernels that the compiler inlines into their callers, so their
// time shows up at these lines, inside the callers' code.
#pragma once

#include <cstddef>
#include <vector>

namespace kernels {

// A dot product with a stride: inlined, its loop is the hot spot of the program.
template <class T>
inline T dot(const std::vector<T>& a, const std::vector<T>& b, std::size_t stride)
{
    T sum = 0;
    for (std::size_t i = 0; i < a.size(); i += stride)
        sum += a[i] * b[(i * 7) % b.size()];
    return sum;
}

// Scales a vector in place: also inlined, a smaller share of the time.
template <class T>
inline void scale(std::vector<T>& a, T factor)
{
    for (T& x : a)
        x = x * factor + T(1) / (x + T(3));
}

} // namespace kernels
