#ifndef HIDDEN_H
#define HIDDEN_H
double hidden_entry(long n);
#endif
