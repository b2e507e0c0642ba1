/* dlopen_close FIRST SECOND SECONDS: runs FIRST's function for SECONDS of CPU time, dlcloses it,
 * then does the same with SECOND (which the loader may put at FIRST's old addresses). Under the
 * collector, the profile must still name FIRST with its samples. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int run(const char* path, const char* function, double seconds)
{
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        fprintf(stderr, "dlopen_close: %s\n", dlerror());
        return 1;
    }
    double (*work)(double) = (double (*)(double))dlsym(handle, function);
    if (!work) {
        fprintf(stderr, "dlopen_close: %s\n", dlerror());
        return 1;
    }
    printf("%s: %g\n", function, work(seconds));
    if (dlclose(handle) != 0) {
        fprintf(stderr, "dlopen_close: dlclose: %s\n", dlerror());
        return 1;
    }
    return 0;
}

int main(int argc, char** argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: dlopen_close FIRST SECOND SECONDS\n");
        return 2;
    }
    const double seconds = atof(argv[3]);
    if (run(argv[1], "first_work", seconds) || run(argv[2], "second_work", seconds))
        return 1;
    return 0;
}
