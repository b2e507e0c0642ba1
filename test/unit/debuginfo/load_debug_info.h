// The debuginfo tests' way to read a file: the DebugInfo, or an empty one after a test failure
// naming the error.
#pragma once

#include "ppe/debuginfo/debug_info.h"

#include <gtest/gtest.h>

#include <string>

namespace ppe::debuginfo {

inline DebugInfo load(const std::string& path, const Options& options = {})
{
    auto info = loadDebugInfo(path, options);
    EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().str());
    return info.ok() ? std::move(info.value()) : DebugInfo {};
}

} // namespace ppe::debuginfo
