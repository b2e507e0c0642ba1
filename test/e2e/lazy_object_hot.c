// One of the two compile units of liblazy_object.so (lazy_object_test.cc): the library's computing
// code, where its samples fall.
__attribute__((noinline)) double lazy_hot(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i * (double)i); // lazy_hot's line
    return s;
}
