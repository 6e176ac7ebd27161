#include "cluster/time_source.h"

#include <ctime>

namespace farmdb::cluster {

int64_t SystemTimeSource::Nanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

SkewedTimeSource::SkewedTimeSource(TimeSource* base, int64_t offset_ns, double drift_ppm)
    : base_(base), offset_ns_(offset_ns), base_origin_(base->Nanos()), drift_ppm_(drift_ppm) {}

int64_t SkewedTimeSource::Nanos() {
  int64_t elapsed = base_->Nanos() - base_origin_;
  return offset_ns_ + static_cast<int64_t>(static_cast<double>(elapsed) * (1.0 + drift_ppm_ / 1e6));
}

}  // namespace farmdb::cluster
