// templates: C++ with class templates, a function template and inline header functions.
#include "matrix.h"

#include <cstdio>

template <class T, int N>
T sumProducts(const Matrix<T, N>& a, const Matrix<T, N>& b)
{
    T sum = T();
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            sum += a.at(i, j) * b.at(j, i);
    return sum;
}

static Matrix<double, 24> g_a, g_b;
static Matrix<int, 8> g_c;

int main(int argc, char** argv)
{
    g_a.fill(argc);
    g_b.fill(2.0);
    g_c.fill(1000);
    int pick = clampIndex(argc * 3, 8);
    std::printf("%g %g %d %d %s\n", sumProducts(g_a, g_b), g_a.trace(), g_c.trace(), g_c.at(pick, pick), argv[0]);
    return 0;
}
