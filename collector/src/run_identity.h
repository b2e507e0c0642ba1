// What ran, where and how: the identity fields of a profile (producer, host, CPU, command line,
// image and build id, sampling settings).
#pragma once

#include "config.h"
#include "image.h"
#include "sampler.h"

#include "ppe/core/profile_record.h"

namespace ppe {

// Fills the identity of the run into `record`. Not signal-safe (uname, /proc reads into a static buffer).
void describeRun(ProfileRecord& record, const ObjectImage& image, const Config& config, Mechanism mechanism);

} // namespace ppe
