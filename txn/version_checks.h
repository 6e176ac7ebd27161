// Checks that objects are unlocked and still at given versions by reading their header words at
// their primaries: FaRM §4's VALIDATE (one-sided reads; a plain memory read where the primary is
// this machine). Commit validates its read set with it, and a serializable transaction moving
// its read timestamp forward (txn.h) checks that what it read is still current.
#pragma once

#include <deque>

#include "cluster/fabric/fabric.h"
#include "txn/address.h"

namespace farmdb::txn {

class TxnEngine;

class VersionChecks {
 public:
  explicit VersionChecks(TxnEngine& engine) : engine_(engine) {}
  // The remote reads started write into this object: it waits for them.
  ~VersionChecks() { Unchanged(); }
  VersionChecks(const VersionChecks&) = delete;
  VersionChecks& operator=(const VersionChecks&) = delete;

  // Starts the check of `addr` against `version`. Memory that is gone fails it.
  void Add(Addr addr, Timestamp version);
  // Waits for the checks started and says whether every object was unlocked at its version.
  bool Unchanged();

 private:
  struct Remote {
    Timestamp version;
    alignas(8) std::byte word[8];
    cluster::CompletionPtr done;
  };
  void Check(Timestamp version, uint64_t header);

  TxnEngine& engine_;
  std::deque<Remote> remote_;  // stable addresses while reads write into them
  size_t awaited_ = 0;
  bool ok_ = true;
};

}  // namespace farmdb::txn
