// ppeout reads a shared object's DWARF as it reads the executable's: only the compile units that
// hold code the report names (its samples' offsets and the places blocked threads waited at), the
// rest by their names and ranges alone. What the report says of those places must be what a read
// of the whole DWARF says (`--by file` still reads it whole): liblazy_object.so has two units, the
// samples in one, a thread's wait in the other.
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace ppe::testing {
namespace {

    const std::string kLibrary = "liblazy_object.so";

    // The report's section under `heading`, up to the next section.
    std::string section(const std::string& report, const std::string& heading)
    {
        const size_t at = report.find(heading);
        if (at == std::string::npos)
            return "";
        const size_t end = report.find("\nPPE - ", at + heading.size());
        return report.substr(at, end == std::string::npos ? std::string::npos : end - at);
    }

    // The line of `text` that holds `part`, or "".
    std::string lineWith(const std::string& text, const std::string& part)
    {
        const size_t at = text.find(part);
        if (at == std::string::npos)
            return "";
        const size_t begin = text.rfind('\n', at) + 1;
        return text.substr(begin, text.find('\n', at) - begin);
    }

    // Whether a blocked thread's place (the system call's site) was in the library.
    bool blockedInLibrary(const Profile& profile)
    {
        for (const BlockedPlace& b : profile.blocked) {
            if (b.site.kind == CodeLocation::Kind::Object && b.site.object < profile.objects.size()
                && profile.objects[b.site.object].path.ends_with("/" + kLibrary))
                return true;
        }
        return false;
    }

    TEST(LazyObject, NamedPlacesAreAsByAWholeReadAndAWaitWithoutSamplesIsNamed)
    {
        TempDir dir;
        const std::string ppe = dir.file("l.ppe");
        const RunResult run = runProgram({ PPE_LAUNCHER, "-o", ppe, PPE_LAZY_OBJECT_MAIN });
        ASSERT_EQ(run.status, 0) << run.err;
        auto profile = readProfile(ppe);
        ASSERT_TRUE(profile.ok()) << profile.error().str();
#if !defined(__x86_64__) && !defined(__aarch64__)
        GTEST_SKIP() << "lazy_object_wait.c makes its system call itself only on x86-64 and AArch64";
#endif
        ASSERT_TRUE(blockedInLibrary(*profile)) << "the waiting thread was not seen in " << kLibrary;

        const RunResult lazy = runProgram({ PPEOUT, "--by", "function", ppe, "-" });
        ASSERT_EQ(lazy.status, 0) << lazy.err;
        // The wait's unit took no sample: only its blocked place makes ppeout read it.
        const std::string blocked = section(lazy.out, "PPE - BLOCKED TIME BY PLACE");
        const std::string wait = lineWith(blocked, "nanosleep");
        EXPECT_NE(wait.find("lazy_wait (" + kLibrary + ")"), std::string::npos) << blocked;
        // The samples' unit: its function, and the hot line with its file.
        const std::string objects = section(lazy.out, "PPE - SHARED OBJECTS");
        EXPECT_NE(lineWith(objects, " lazy_hot "), "") << objects;
        const std::string analysis = section(lazy.out, "PPE - SHARED OBJECT " + kLibrary + " IN DECREASING");
        EXPECT_NE(
            analysis.find("File " + std::string(PPE_LAZY_OBJECT_SOURCE) + "/lazy_object_hot.c"), std::string::npos)
            << analysis;
        const std::string hot = lineWith(analysis, "// lazy_hot's line");
        ASSERT_NE(hot, "") << analysis;

        // Modules by source file read the library's DWARF whole: its function table and hot line
        // are the same. (Blocked places are named by the function table's lazy read either way:
        // lazy_wait above is what the whole DWARF names there.)
        const RunResult whole = runProgram({ PPEOUT, "--by", "file", ppe, "-" });
        ASSERT_EQ(whole.status, 0) << whole.err;
        EXPECT_EQ(section(whole.out, "PPE - SHARED OBJECTS"), objects);
        EXPECT_EQ(
            lineWith(section(whole.out, "PPE - SHARED OBJECT " + kLibrary + " IN DECREASING"), "// lazy_hot's line"),
            hot);
    }

} // namespace
} // namespace ppe::testing
