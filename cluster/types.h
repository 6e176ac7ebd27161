// Basic vocabulary shared by the cluster layer and the layers above it.
//
// Timestamps are nanoseconds on the clock master's clock (FaRMv2 §4.1); object headers keep 53
// bits of them (§4.4), which lasts 104 days from cluster start.
#pragma once

#include <cstdint>

namespace farmdb::cluster {

using MachineId = uint32_t;
using RegionId = uint32_t;
using Timestamp = uint64_t;

inline constexpr MachineId kNoMachine = UINT32_MAX;
inline constexpr Timestamp kTimestampMask = (uint64_t{1} << 53) - 1;

// A time interval [lower, upper] that contains the clock master's time (FaRMv2 Fig. 2).
struct Interval {
  Timestamp lower = 0;
  Timestamp upper = 0;
};

}  // namespace farmdb::cluster
