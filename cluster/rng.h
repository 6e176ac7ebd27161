// Rng: small seeded pseudo-random generator (splitmix64). Every random choice in the cluster and
// txn layers (fault injection, workloads) draws from an Rng built from a test's seed, so a seed
// replays the same choices. Not thread-safe: give each thread its own Rng (see Fork()).
#pragma once

#include <cstdint>

namespace farmdb::cluster {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  uint64_t Uniform(uint64_t n) { return Next() % n; }
  // True with probability p (0..1).
  bool Chance(double p) { return (Next() >> 11) * (1.0 / 9007199254740992.0) < p; }
  // An independent generator derived from this one (for another thread).
  Rng Fork() { return Rng(Next()); }

 private:
  uint64_t state_;
};

}  // namespace farmdb::cluster
