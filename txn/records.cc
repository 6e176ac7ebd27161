#include "txn/records.h"

#include <cstring>

#include "cluster/codec.h"
#include "txn/log.h"
#include "txn/object.h"

namespace farmdb::txn {

using cluster::ByteReader;
using cluster::ByteWriter;

uint64_t EncodedSize(const RecordObject& o) { return 24 + ((o.payload.size() + 7) & ~size_t{7}); }

uint64_t EncodedSize(const Record& r) { return EncodedSize(r, r.objects); }

uint64_t EncodedSize(const Record& r, std::span<const RecordObject> objects) {
  uint64_t n = 32 + 8 * r.truncated.size() + 8;  // header, truncations, trailer
  for (auto& o : objects) n += EncodedSize(o);
  return (n + kRecordAlign - 1) & ~(kRecordAlign - 1);
}

std::vector<std::byte> EncodeRecord(const Record& r) { return EncodeRecord(r, r.objects); }

std::vector<std::byte> EncodeRecord(const Record& r, std::span<const RecordObject> objects) {
  uint64_t len = EncodedSize(r, objects);
  std::vector<std::byte> out;
  out.reserve(len);
  ByteWriter w(&out);
  w.U64(len | (uint64_t{static_cast<uint8_t>(r.type)} << 32));
  w.U64(r.txn);
  w.U64(r.write_ts);
  w.U32(static_cast<uint32_t>(r.truncated.size())), w.U32(static_cast<uint32_t>(objects.size()));
  for (TxnId t : r.truncated) w.U64(t);
  for (auto& o : objects) {
    w.U64(o.addr.raw), w.U64(o.expected), w.U32(o.flags), w.U32(o.lines);
    w.Bytes(o.payload);
    w.Align8();
  }
  out.resize(len, std::byte{0});  // padding and the trailer (filled by LogWriter::Append)
  return out;
}

namespace {
// Decodes into `r`; objects only if `with_objects` (their payloads view `bytes`).
bool Decode(std::span<const std::byte> bytes, bool with_objects, Record& r) {
  ByteReader rd(bytes);
  uint64_t w0 = rd.U64();
  r.type = static_cast<RecordType>((w0 >> 32) & 0xff);
  r.configuration = static_cast<uint32_t>(w0 >> 40);
  r.txn = rd.U64();
  r.write_ts = rd.U64();
  uint32_t nt = rd.U32(), no = rd.U32();
  for (uint32_t i = 0; i < nt && rd.ok(); ++i) r.truncated.push_back(rd.U64());
  for (uint32_t i = 0; with_objects && i < no && rd.ok(); ++i) {
    RecordObject o;
    o.addr = {rd.U64()};
    o.expected = rd.U64();
    o.flags = rd.U32();
    o.lines = rd.U32();
    if (o.lines == 0 || o.lines > 4096) return false;
    o.payload = rd.Bytes(PayloadCapacity(o.lines));
    rd.Align8();
    r.objects.push_back(std::move(o));
  }
  return rd.ok();
}
}  // namespace

std::optional<Record> DecodeRecord(RawBytes bytes) {
  Record r;
  // Moved in before parsing: the payload views point into the buffer where it stays.
  const RawBytes& kept = r.buffers.emplace_back(std::move(bytes));
  if (!Decode(kept, true, r)) return std::nullopt;
  return r;
}

std::optional<Record> DecodeRecordHeader(std::span<const std::byte> bytes) {
  Record r;
  if (!Decode(bytes, false, r)) return std::nullopt;
  return r;
}

std::optional<Record> DecodeRecordView(std::span<const std::byte> bytes) {
  Record r;
  if (!Decode(bytes, true, r)) return std::nullopt;
  return r;
}

void SetRecordConfiguration(std::span<std::byte> encoded, uint32_t configuration) {
  uint64_t w0;
  std::memcpy(&w0, encoded.data(), 8);
  w0 = (w0 & ((uint64_t{1} << 40) - 1)) | (uint64_t{configuration} << 40);
  std::memcpy(encoded.data(), &w0, 8);
}

std::vector<std::byte> EncodeLockReply(const LockReply& r) {
  std::vector<std::byte> out;
  ByteWriter w(&out);
  w.U64(r.txn), w.U64(static_cast<uint64_t>(r.outcome)), w.U64(r.max_head_ts);
  return out;
}

std::optional<LockReply> DecodeLockReply(std::span<const std::byte> bytes) {
  ByteReader rd(bytes);
  LockReply r;
  r.txn = rd.U64();
  uint64_t outcome = rd.U64();
  r.max_head_ts = rd.U64();
  if (!rd.ok() || outcome > static_cast<uint64_t>(LockOutcome::kNoSpace)) return std::nullopt;
  r.outcome = static_cast<LockOutcome>(outcome);
  return r;
}

}  // namespace farmdb::txn
