#include "cluster/crash_point.h"

#if defined(FARMDB_CRASH_POINTS)
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace farmdb::cluster {

namespace {
struct Armed {
  std::string name;
  long at = 0;  // 0: none armed
  std::atomic<long> hits{0};
  Armed() {
    const char* spec = std::getenv("FARMDB_CRASH_POINT");
    if (!spec) return;
    std::string s(spec);
    size_t colon = s.rfind(':');
    name = s.substr(0, colon);
    at = colon == std::string::npos ? 1 : std::atol(s.c_str() + colon + 1);
  }
};
}  // namespace

void CrashPoint(std::string_view name) {
  static Armed armed;
  if (armed.at == 0 || name != armed.name) return;
  if (armed.hits.fetch_add(1) + 1 == armed.at) ::kill(::getpid(), SIGKILL);
}

}  // namespace farmdb::cluster
#endif
