// One-sided reads of object header words at their primaries (a plain memory read where the
// primary is this machine): FaRM §4's VALIDATE, and what Commit looks at when a LOCK fails.
// Commit validates its read set with VersionChecks, a serializable transaction moving its read
// timestamp forward (txn.h) checks that what it read is still current, and a commit with
// re-applicable writes reads HeaderReads to learn why its LOCK failed.
#pragma once

#include <deque>
#include <optional>

#include "cluster/fabric/fabric.h"
#include "txn/address.h"

namespace farmdb::txn {

class TxnEngine;

class HeaderReads {
 public:
  explicit HeaderReads(TxnEngine& engine) : engine_(engine) {}
  // The remote reads started write into this object: it waits for them.
  ~HeaderReads();
  HeaderReads(const HeaderReads&) = delete;
  HeaderReads& operator=(const HeaderReads&) = delete;

  // Starts reading `addr`'s header word; returns the read's index for Get.
  size_t Add(Addr addr);
  // Read i's header word (waiting for it), or nullopt if the memory is gone.
  std::optional<uint64_t> Get(size_t i);

 private:
  struct Read {
    bool ok = false;
    alignas(8) std::byte word[8];
    cluster::CompletionPtr done;  // null: done at Add (local, or no place)
  };
  TxnEngine& engine_;
  std::deque<Read> reads_;  // stable addresses while remote reads write into them
};

class VersionChecks {
 public:
  explicit VersionChecks(TxnEngine& engine) : reads_(engine) {}

  // Starts the check of `addr` against `version`. Memory that is gone fails it.
  void Add(Addr addr, Timestamp version) {
    reads_.Add(addr);
    versions_.push_back(version);
  }
  // Waits for the checks started and says whether every object was unlocked at its version.
  bool Unchanged();

 private:
  HeaderReads reads_;
  std::deque<Timestamp> versions_;
  size_t checked_ = 0;
  bool ok_ = true;
};

}  // namespace farmdb::txn
