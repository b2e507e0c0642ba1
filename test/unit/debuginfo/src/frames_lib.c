/* A shared library of many small functions that only its .eh_frame describes once stripped
   (static, not exported): frame_lookup_test.cc names them through .eh_frame_hdr and whole. */
#define F(n)                                                                                     \
    static __attribute__((noinline, noclone)) int f##n(int x)                                    \
    {                                                                                            \
        for (int i = 0; i < (n % 5) + 1; ++i)                                                    \
            x = x * (n + 3) + (x >> (n % 7 + 1));                                                \
        return x;                                                                                \
    }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define P(n) f##n,
#define P10(n) P(n##0) P(n##1) P(n##2) P(n##3) P(n##4) P(n##5) P(n##6) P(n##7) P(n##8) P(n##9)
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)

static int (*const table[])(int) = { P10(1) P10(2) P10(3) P10(4) P10(5) P10(6) P10(7) P10(8) P10(9) };

int frames_run(unsigned i, int x) { return table[i % (sizeof table / sizeof table[0])](x); }
