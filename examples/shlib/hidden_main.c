/* hidden: a program whose time goes into libhidden.so, a stripped library without unwind tables.
 * Usage: hidden [MILLIONS]   (default 300) */
#include "hidden.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    const long millions = argc > 1 ? atol(argv[1]) : 300;
    printf("hidden: %.12f\n", hidden_entry(millions * 1000000L));
    return 0;
}
