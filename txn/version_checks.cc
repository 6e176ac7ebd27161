#include "txn/version_checks.h"

#include "cluster/fabric/word_copy.h"
#include "txn/engine.h"
#include "txn/object.h"

namespace farmdb::txn {

HeaderReads::~HeaderReads() {
  for (Read& r : reads_) {
    if (r.done) r.done->Wait();
  }
}

size_t HeaderReads::Add(Addr addr) {
  Read& r = reads_.emplace_back();
  cluster::Machine& machine = engine_.machine();
  auto primary = machine.PrimaryOf(addr.region());
  if (!primary) return reads_.size() - 1;
  if (*primary == machine.id()) {
    if (std::byte* mem = engine_.LocalObject(addr, 1)) {
      cluster::StoreWord(r.word, cluster::LoadWord(mem));
      r.ok = true;
    }
  } else {
    r.done = machine.fabric().Read(machine.id(), *primary,
                                   cluster::MemKey(cluster::MemKind::kRegion, addr.region()), addr.offset(), r.word);
  }
  return reads_.size() - 1;
}

std::optional<uint64_t> HeaderReads::Get(size_t i) {
  Read& r = reads_[i];
  if (r.done) {
    r.done->Wait();
    r.ok = r.done->ok();
    r.done = nullptr;
  }
  if (!r.ok) return std::nullopt;
  return cluster::LoadWord(r.word);
}

bool VersionChecks::Unchanged() {
  for (; checked_ < versions_.size(); ++checked_) {
    std::optional<uint64_t> header = reads_.Get(checked_);
    if (!header || HeaderLocked(*header) || HeaderTs(*header) != versions_[checked_]) ok_ = false;
  }
  return ok_;
}

}  // namespace farmdb::txn
