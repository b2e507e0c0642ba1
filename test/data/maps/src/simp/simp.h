#pragma once

long long isqrtll(long long n);
int usage(const char* prog);
long checksum(long seed, int rounds);
long mix(long v, int i); /* y.c */
long fold(long v); /* z.c */
long unused(long v); /* w.c */
