// matrix: a small fixed-size matrix template whose members are all inline, so that their code
// is attributed to this header (COMDAT sections at -O0, inlined into the callers at -O2).
#pragma once

template <class T, int N>
class Matrix {
public:
    T& at(int row, int col) { return m_data[row * N + col]; }
    const T& at(int row, int col) const { return m_data[row * N + col]; }

    void fill(T seed)
    {
        for (int r = 0; r < N; ++r)
            for (int c = 0; c < N; ++c)
                at(r, c) = seed / T(r + c + 1);
    }

    T trace() const
    {
        T sum = T();
        for (int i = 0; i < N; ++i)
            sum += at(i, i);
        return sum;
    }

private:
    T m_data[N * N];
};

inline int clampIndex(int i, int n)
{
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}
