// The one rule for which object a NAME names (issue 38): PPE_OBJECT in the collector and
// ppeout's --object / --object-lines apply it, so one set of cases covers both.
#include "ppe/core/object_name.h"

#include <gtest/gtest.h>

namespace ppe {
namespace {

    TEST(ObjectName, TheWholePathNamesTheObject)
    {
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so.1.2", "/lib/libkernel.so.1.2"));
        EXPECT_TRUE(objectNameMatches("libkernel.so", "libkernel.so")); // a path without a directory
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", "lib/libkernel.so")); // part of a path: no
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", "/usr/lib/libkernel.so"));
    }

    TEST(ObjectName, TheFileNameWholeOrUpToADotNamesTheObject)
    {
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so", "libkernel.so"));
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so.1.2", "libkernel.so")); // without its version
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so.1.2", "libkernel.so.1"));
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so", "libkernel"));
        EXPECT_FALSE(objectNameMatches("/lib/libkernel2.so", "libkernel")); // not up to a '.'
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", "kernel.so")); // not from the start
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", "libkernel.so.1")); // longer than the name
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so.1", "libkernel.so.")); // '.' then more
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", "LIBKERNEL.SO"));
    }

    // The collector used to take "" as naming a file whose name starts with '.' (or a path that
    // ends in '/'); the formatter took it as naming nothing. Nothing it is now, for both.
    TEST(ObjectName, AnEmptyNameNamesNothing)
    {
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", ""));
        EXPECT_FALSE(objectNameMatches("/opt/.hidden.so", ""));
        EXPECT_FALSE(objectNameMatches("/opt/dir/", ""));
        EXPECT_FALSE(objectNameMatches("", ""));
        EXPECT_FALSE(objectNameMatches("", "libkernel.so"));
    }

} // namespace
} // namespace ppe
