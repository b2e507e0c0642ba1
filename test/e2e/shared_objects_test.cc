// Samples in shared objects: kept per file offset with the object's path and build id, also for
// objects the program unloads with dlclose before it ends.
#include "elf_symbols.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>

namespace ppe::testing {
namespace {

    std::string realPath(const std::string& path)
    {
        char resolved[PATH_MAX];
        return realpath(path.c_str(), resolved) ? resolved : path;
    }

    const SharedObject* objectNamed(const Profile& p, const std::string& path)
    {
        for (const SharedObject& o : p.objects) {
            if (o.path == path)
                return &o;
        }
        return nullptr;
    }

    // The share of `o`'s hits at file offsets inside `f` (in these libraries, code is at the same
    // file offset as its link-time address).
    double shareIn(const SharedObject& o, const FunctionSymbol& f)
    {
        uint64_t inside = 0;
        for (const ObjectSamples& h : o.hitsByOffset)
            inside += h.fileOffset >= f.address && h.fileOffset < f.address + f.size ? h.count : 0;
        return o.hits ? double(inside) / double(o.hits) : 0;
    }

    TEST(SharedObjects, AnUnloadedLibraryKeepsItsNameAndSamples)
    {
        TempDir dir;
        const RunResult run = runProgram({ PPE_LAUNCHER, "-o", dir.file("d.ppe"), "--mode", "cpu", PPE_DLOPEN_CLOSE,
            PPE_DL_FIRST, PPE_DL_SECOND, "0.4" });
        ASSERT_EQ(run.status, 0) << run.err;
        auto profile = readProfile(dir.file("d.ppe"));
        ASSERT_TRUE(profile.ok()) << profile.error().str();
        const Profile& p = *profile;
        for (const auto& [library, function] :
            { std::pair { PPE_DL_FIRST, "first_work" }, { PPE_DL_SECOND, "second_work" } }) {
            const SharedObject* o = objectNamed(p, realPath(library));
            ASSERT_NE(o, nullptr) << library << " is not in the profile";
            EXPECT_EQ(o->buildId, buildIdOf(library));
            // 0.4 s of CPU at the achieved rate (2 kHz with perf events, the scheduler tick where
            // they are refused), most of them in the function.
            EXPECT_GT(double(o->hits), 0.5 * 0.4 * p.achievedRate) << library << ", " << p.mechanism;
            EXPECT_GT(shareIn(*o, findFunction(functionSymbols(library), function)), 0.8) << library;
        }
        EXPECT_LT(p.counts[kUnknown], p.total / 50) << "samples of unloaded code must not become unknown";
    }

} // namespace
} // namespace ppe::testing
