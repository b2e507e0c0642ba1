// The hot loop of lto_inline, small enough for gcc -flto to inline into its one caller.
unsigned long mix(long n, unsigned seed)
{
    unsigned long h = seed;
    for (long i = 0; i < n; ++i) {
        h ^= (unsigned long)i;
        h *= 0x100000001b3ul;
        h ^= h >> 29;
    }
    return h;
}
