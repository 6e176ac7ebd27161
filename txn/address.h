// Addr: a global address, 64 bits = region id (high 24) + byte offset in the region (low 40).
// The head version of an object never moves, so an Addr names an object for its lifetime
// (DESIGN.md "txn/ Address"). Addr 0 is null: region ids start at 1.
#pragma once

#include <cstdint>
#include <functional>

#include "cluster/types.h"

namespace farmdb::txn {

using cluster::MachineId;
using cluster::RegionId;
using cluster::Timestamp;

struct Addr {
  uint64_t raw = 0;

  static constexpr int kOffsetBits = 40;
  static Addr Of(RegionId region, uint64_t offset) {
    return {(uint64_t{region} << kOffsetBits) | offset};
  }
  RegionId region() const { return static_cast<RegionId>(raw >> kOffsetBits); }
  uint64_t offset() const { return raw & ((uint64_t{1} << kOffsetBits) - 1); }
  bool null() const { return raw == 0; }
  friend bool operator==(Addr, Addr) = default;
  friend auto operator<=>(Addr, Addr) = default;
};

}  // namespace farmdb::txn

template <>
struct std::hash<farmdb::txn::Addr> {
  size_t operator()(farmdb::txn::Addr a) const noexcept { return std::hash<uint64_t>()(a.raw); }
};
