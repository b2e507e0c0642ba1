// The hot functions of the lto example, one per file.
#pragma once

unsigned long count_primes(int limit);
unsigned long sort_checksum(int n, unsigned seed);
unsigned long hash_mix(long n, unsigned seed);
