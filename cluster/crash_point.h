// Crash points: named places where a test build kills its own process with SIGKILL, as kill -9
// or a crash would at that instant (server/crash_points_test.py). FARMDB_CRASH_POINT=NAME:N in
// the environment arms the N-th time the process passes NAME; nothing else is armed. Builds
// without FARMDB_CRASH_POINTS (release) compile every point away.
#pragma once

#include <string_view>

namespace farmdb::cluster {

#if defined(FARMDB_CRASH_POINTS)
void CrashPoint(std::string_view name);
#else
inline void CrashPoint(std::string_view) {}
#endif

}  // namespace farmdb::cluster
