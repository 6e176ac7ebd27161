// Sequences: PostgreSQL's CREATE SEQUENCE / nextval, as one object per sequence plus a
// per-machine cache of blocks of values (DESIGN.md "storage/": sequences hand out blocks of ids
// per node).
//
// The sequence object holds the options (start, increment, min, max, cache, cycle) and the state
// (last value handed out to any cache, and is_called, as in PostgreSQL's sequence relation):
//   tag "SEQ1" u32 | is_called u8 | cycle u8 | 0 u16 | incarnation u64 | start i64 |
//   increment i64 | min i64 | max i64 | cache i64 | last i64
//
// nextval is not transactional in PostgreSQL: a value handed out is gone even if the caller
// rolls back, and concurrent callers never wait on each other. So SequenceCache takes a block
// of `cache` values in its own short transaction on its own Worker (never in the caller's Txn:
// a counter written by every inserting transaction would make them all conflict), and hands the
// block out locally. Blocks are per machine, as PostgreSQL's CACHE is per session: values from
// one machine increase, values across machines interleave. Tables without a primary key take
// hidden row ids from a sequence with a large cache (kRowIdCache).
//
// Incarnation: a SequenceRef names a sequence by its Addr and an incarnation (the creating
// TxnId). A cached block is keyed by both, so a block of a dropped sequence is never handed out
// for a new sequence that reuses the Addr on this or any other machine.
//
// Thread-safety: Sequence functions use the caller's Txn (one thread). SequenceCache is
// thread-safe; refills are serialised per machine by a mutex around its Worker.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "storage/index.h"
#include "txn/engine.h"

namespace farmdb::storage {

using txn::Addr;

// As CREATE SEQUENCE resolved them (the SQL layer applies PostgreSQL's sign-dependent
// defaults: descending sequences run INT64_MIN..-1 and start at max).
struct SequenceOptions {
  int64_t start = 1;
  int64_t increment = 1;  // non-zero
  int64_t min = 1;
  int64_t max = std::numeric_limits<int64_t>::max();
  int64_t cache = 1;  // values per block a machine takes (PostgreSQL CACHE, >= 1)
  bool cycle = false;
};

struct SequenceRef {
  Addr addr;
  uint64_t incarnation = 0;
  friend auto operator<=>(const SequenceRef&, const SequenceRef&) = default;
};

// The stored object: options and state (SELECT last_value, is_called FROM seq; pg_sequences).
struct SequenceState {
  SequenceOptions options;
  int64_t last = 0;        // the last value handed out to some machine's block (or start)
  bool is_called = false;  // false: `last` itself has not been handed out yet
};

class Sequence {
 public:
  // CREATE SEQUENCE: allocates the object in `t`. kInvalidArgument for options PostgreSQL
  // rejects (increment 0, min >= max, start outside [min, max], cache < 1).
  static StorageResult<SequenceRef> Create(txn::Txn& t, const SequenceOptions& options);
  // Reads the object in `t` (for last_value and the catalog views). kInvalidArgument if `seq`
  // names no sequence of this incarnation.
  static StorageResult<SequenceState> Read(txn::Txn& t, SequenceRef seq);
  // DROP SEQUENCE: frees the object in `t`. Cached blocks elsewhere die with their incarnation.
  static StorageResult<void> Drop(txn::Txn& t, SequenceRef seq);
};

class SequenceCache {
 public:
  // Hidden row ids: one refill transaction per this many inserts on a machine, handed to each
  // worker in chunks of kRowIdChunk (NextRowId). A new chunk starts at the top of the ids, in
  // the leaf where the last chunk begun is appending, and the two workers' inserts share that
  // leaf (and conflict) until a split parts them, some tens of inserts later. So chunks are
  // large: with 512, pgbench's history inserts made 1.6% of TPC-B-like transactions retry; with
  // 4096, 0.2% (sql/bench/RESULTS.md).
  static constexpr int64_t kRowIdCache = 65536;
  static constexpr int64_t kRowIdChunk = 4096;

  // One per machine; takes a Worker of `engine` for its refill transactions, so it must be
  // destroyed before the engine.
  explicit SequenceCache(txn::TxnEngine& engine);
  SequenceCache(const SequenceCache&) = delete;
  SequenceCache& operator=(const SequenceCache&) = delete;

  // nextval: the next value of this machine's block, refilling it (own transaction, retried on
  // conflicts) when empty. kSequenceLimit when the sequence passed its max (min, descending)
  // without CYCLE (SQLSTATE 2200H); kInvalidArgument if `seq` names no sequence.
  StorageResult<int64_t> Next(SequenceRef seq);
  // The same, for callers with a Txn open: a sequence created by `caller` and not committed yet
  // (CREATE TABLE or CREATE SEQUENCE then INSERT / nextval in one transaction) is invisible to
  // this cache's own transactions, so its values are taken in `caller` instead.
  StorageResult<int64_t> Next(SequenceRef seq, txn::Txn& caller);
  // A hidden row id (table.h) for an insert in `caller`: values of `seq` in chunks of
  // kRowIdChunk per worker (the worker running `caller`), so that concurrent inserters append
  // to B-tree leaves far apart instead of all writing the rightmost leaf, where under OCC every
  // pair of overlapping inserts would conflict (FaRM §4: the second LOCK of the leaf fails).
  // Ids from one worker increase, so one session's rows keep their insertion order.
  StorageResult<int64_t> NextRowId(SequenceRef seq, txn::Txn& caller);
  // setval(seq, value, is_called): writes the state in its own transaction (not transactional
  // in PostgreSQL either) and drops this machine's block; other machines finish their blocks,
  // as other sessions finish their caches in PostgreSQL. kInvalidArgument outside [min, max].
  StorageResult<void> Set(SequenceRef seq, int64_t value, bool is_called);
  // Worker::FlushTruncations for the refill worker: call when idle (and in tests before
  // comparing replicas), like every other worker's.
  void FlushTruncations();

 private:
  struct Block {
    SequenceOptions options;
    int64_t next = 0;
    int64_t remaining = 0;
    // Its refill's commit, which must be durable before any of its values is handed out (the
    // refill is synchronous; a taker waits for it outside every mutex, cluster/fibers.h).
    txn::CommitInfo refill;
  };
  // Runs `fn(txn)` in fresh transactions on worker_ until one commits or fails for good.
  // REQUIRES: worker_mu_ held.
  template <typename T, typename Fn>
  StorageResult<T> RunTxn(Fn fn, txn::CommitInfo* committed);

  // worker_mu_ serialises refills (the Worker is one thread's at a time); mu_ guards only the
  // blocks, so threads with values left never wait behind a refill's transaction.
  // Order: worker_mu_ before mu_.
  std::mutex worker_mu_;
  std::unique_ptr<txn::Worker> worker_;  // guarded by worker_mu_
  std::mutex mu_;
  std::map<SequenceRef, Block> blocks_;  // guarded by mu_
  // NextRowId's chunks, by sequence and worker id (values only, no options).
  struct Chunk {
    int64_t next = 0;
    int64_t remaining = 0;
  };
  std::map<std::pair<SequenceRef, uint32_t>, Chunk> chunks_;  // guarded by mu_
};

}  // namespace farmdb::storage
