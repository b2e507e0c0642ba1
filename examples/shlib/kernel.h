#ifndef KERNEL_H
#define KERNEL_H
double kernel_sum(long n);
#endif
