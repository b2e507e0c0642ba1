#include "ppe/core/object_name.h"

namespace ppe {

namespace {

    bool same(const char* a, const char* b)
    {
        while (*a && *a == *b)
            ++a, ++b;
        return *a == *b;
    }

    const char* fileName(const char* path)
    {
        const char* base = path;
        for (const char* c = path; *c; ++c)
            if (*c == '/')
                base = c + 1;
        return base;
    }

} // namespace

bool objectNameMatches(const char* path, const char* name)
{
    if (!*name)
        return false;
    if (same(path, name))
        return true;
    const char* base = fileName(path);
    while (*name && *base == *name)
        ++base, ++name;
    return !*name && (!*base || *base == '.');
}

} // namespace ppe
