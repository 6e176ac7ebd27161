// What every storage index offers the layers above: errors, and one iterator interface over
// (key, value) pairs that hash lookups and B-tree range scans both return.
// An iterator reads through the Txn it was opened with; it must not outlive that Txn and is used
// by the Txn's thread only.
#pragma once

#include <cstdint>
#include <expected>
#include <string_view>

#include "txn/txn.h"

namespace farmdb::storage {

struct StorageError {
  enum class Code : uint8_t {
    kTxn,              // the transaction failed: see txn (retry if txn.IsRetryable())
    kDuplicateKey,     // the key (unique) or the pair (non-unique) is present (SQLSTATE 23505)
    kTooLarge,         // key + value exceed the index's limit
    kInvalidArgument,  // bad index options
    kCorrupt,          // an object did not decode or broke an invariant: a bug
    kSequenceLimit,    // nextval passed the sequence's max (min) without CYCLE (SQLSTATE 2200H)
  };
  Code code = Code::kTxn;
  txn::TxnError txn;
  // kDuplicateKey from a Table: which index (0 = primary, i = secondary i; table.h), so SQL can
  // name the violated constraint.
  uint32_t index = 0;
  bool IsRetryable() const { return code == Code::kTxn && txn.IsRetryable(); }
};

template <typename T>
using StorageResult = std::expected<T, StorageError>;

inline std::unexpected<StorageError> TxnFailure(txn::TxnError e) {
  return std::unexpected(StorageError{StorageError::Code::kTxn, e});
}
inline std::unexpected<StorageError> Failure(StorageError::Code c) {
  return std::unexpected(StorageError{c, {}});
}

class IndexIterator {
 public:
  virtual ~IndexIterator() = default;
  // Moves to the next pair; false once past the last (then key() and value() are invalid).
  virtual StorageResult<bool> Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
};

}  // namespace farmdb::storage
