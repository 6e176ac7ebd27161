#include "txn/version_checks.h"

#include "cluster/fabric/word_copy.h"
#include "txn/engine.h"
#include "txn/object.h"

namespace farmdb::txn {

void VersionChecks::Add(Addr addr, Timestamp version) {
  cluster::Machine& machine = engine_.machine();
  auto place = machine.Lookup(addr.region());
  if (!place) {
    ok_ = false;
    return;
  }
  if (place->primary == machine.id()) {
    std::byte* mem = engine_.LocalObject(addr, 1);
    if (mem) Check(version, cluster::LoadWord(mem));
    else ok_ = false;
    return;
  }
  Remote& r = remote_.emplace_back(version);
  r.done = machine.fabric().Read(machine.id(), place->primary,
                                 cluster::MemKey(cluster::MemKind::kRegion, addr.region()), addr.offset(), r.word);
}

bool VersionChecks::Unchanged() {
  for (; awaited_ < remote_.size(); ++awaited_) {
    Remote& r = remote_[awaited_];
    r.done->Wait();
    if (r.done->ok()) Check(r.version, cluster::LoadWord(r.word));
    else ok_ = false;
  }
  return ok_;
}

void VersionChecks::Check(Timestamp version, uint64_t header) {
  if (HeaderLocked(header) || HeaderTs(header) != version) ok_ = false;
}

}  // namespace farmdb::txn
