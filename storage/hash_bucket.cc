#include "storage/hash_bucket.h"

#include <cstring>

namespace farmdb::storage {
namespace {

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  void PutBytes(std::string_view s) {
    size_t at = out_.size();
    out_.resize(at + s.size());
    std::memcpy(out_.data() + at, s.data(), s.size());
  }
  std::vector<std::byte> Take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  template <typename T>
  bool Get(T& v) {
    if (in_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool GetView(size_t n, std::string_view& s) {
    if (in_.size() - at_ < n) return false;
    s = {reinterpret_cast<const char*>(in_.data() + at_), n};
    at_ += n;
    return true;
  }
  bool GetBytes(size_t n, std::string& s) {
    std::string_view v;
    if (!GetView(n, v)) return false;
    s.assign(v);
    return true;
  }
  bool Tag(ObjectTag want) {
    uint32_t t = 0;
    return Get(t) && t == static_cast<uint32_t>(want);
  }

 private:
  std::span<const std::byte> in_;
  size_t at_ = 0;
};

std::unexpected<std::string> Corrupt(std::string_view what) {
  return std::unexpected(std::string("corrupt hash index ") + std::string(what));
}

}  // namespace

size_t HashBucket::EncodedSize() const {
  size_t n = kBucketHeader;
  for (const HashEntry& e : entries) n += e.EncodedSize();
  return n;
}

size_t HashRootCapacity() { return 12 + 8 * (size_t{1} << kMaxGlobalDepth); }

std::vector<std::byte> EncodeRoot(const HashRoot& r) {
  Writer w;
  w.Put(static_cast<uint32_t>(ObjectTag::kHashRoot));
  w.Put(static_cast<uint8_t>(r.unique));
  w.Put(static_cast<uint8_t>(r.global_depth));
  w.Put(static_cast<uint8_t>(r.max_global_depth));
  w.Put(uint8_t{0});
  w.Put(r.buckets_per_segment);
  for (Addr a : r.directory) w.Put(a.raw);
  return w.Take();
}

std::expected<HashRoot, std::string> DecodeRoot(std::span<const std::byte> p) {
  Reader in(p);
  HashRoot r;
  uint8_t unique = 0, depth = 0, max_depth = 0, pad = 0;
  if (!in.Tag(ObjectTag::kHashRoot) || !in.Get(unique) || !in.Get(depth) || !in.Get(max_depth) ||
      !in.Get(pad) || !in.Get(r.buckets_per_segment) || max_depth > kMaxGlobalDepth ||
      depth > max_depth || r.buckets_per_segment < 2) {
    return Corrupt("root");
  }
  r.unique = unique, r.global_depth = depth, r.max_global_depth = max_depth;
  r.directory.resize(size_t{1} << depth);
  for (Addr& a : r.directory) {
    if (!in.Get(a.raw) || a.null()) return Corrupt("directory");
  }
  return r;
}

std::vector<std::byte> EncodeSegment(const HashSegment& s) {
  Writer w;
  w.Put(static_cast<uint32_t>(ObjectTag::kHashSegment));
  w.Put(s.index.raw);
  w.Put(s.depth);
  w.Put(s.prefix);
  w.Put(static_cast<uint32_t>(s.buckets.size()));
  for (Addr a : s.buckets) w.Put(a.raw);
  return w.Take();
}

std::expected<HashSegment, std::string> DecodeSegment(std::span<const std::byte> p) {
  Reader in(p);
  HashSegment s;
  uint32_t n = 0;
  if (!in.Tag(ObjectTag::kHashSegment) || !in.Get(s.index.raw) || !in.Get(s.depth) ||
      !in.Get(s.prefix) || !in.Get(n) || n < 2) {
    return Corrupt("segment");
  }
  s.buckets.resize(n);
  for (Addr& a : s.buckets) {
    if (!in.Get(a.raw) || a.null()) return Corrupt("segment bucket");
  }
  return s;
}

std::vector<std::byte> EncodeBucket(const HashBucket& b) {
  Writer w;
  w.Put(static_cast<uint32_t>(ObjectTag::kHashBucket));
  w.Put(static_cast<uint32_t>(b.entries.size()));
  w.Put(b.next.raw);
  for (const HashEntry& e : b.entries) {
    w.Put(e.hash);
    w.Put(static_cast<uint16_t>(e.key_len));
    w.Put(static_cast<uint16_t>(e.value_len));
    w.Put(static_cast<uint8_t>(!e.blob.null()));
    if (e.blob.null()) {
      w.PutBytes(e.bytes);
    } else {
      w.Put(e.blob.raw);
    }
  }
  return w.Take();
}

std::expected<HashBucketView, std::string> ViewBucket(std::span<const std::byte> p) {
  Reader in(p);
  HashBucketView b;
  if (!in.Tag(ObjectTag::kHashBucket) || !in.Get(b.count) || !in.Get(b.next.raw) ||
      b.count > kBucketSlots) {
    return Corrupt("bucket");
  }
  for (uint32_t i = 0; i < b.count; ++i) {
    HashEntryRef& e = b.entries[i];
    uint16_t k = 0, v = 0;
    uint8_t out_of_line = 0;
    if (!in.Get(e.hash) || !in.Get(k) || !in.Get(v) || !in.Get(out_of_line)) return Corrupt("entry");
    e.key_len = k, e.value_len = v;
    bool ok = out_of_line ? in.Get(e.blob.raw) && !e.blob.null() : in.GetView(k + v, e.bytes);
    if (!ok) return Corrupt("entry body");
  }
  return b;
}

std::expected<HashBucket, std::string> DecodeBucket(std::span<const std::byte> p) {
  auto view = ViewBucket(p);
  if (!view) return std::unexpected(view.error());
  HashBucket b;
  b.next = view->next;
  b.entries.reserve(view->count);
  for (const HashEntryRef& e : std::span(view->entries).first(view->count)) {
    b.entries.push_back({e.hash, e.key_len, e.value_len, e.blob, std::string(e.bytes)});
  }
  return b;
}

std::vector<std::byte> EncodeBlob(std::string_view key, std::string_view value) {
  Writer w;
  w.Put(static_cast<uint32_t>(ObjectTag::kBlob));
  w.PutBytes(key);
  w.PutBytes(value);
  return w.Take();
}

std::expected<std::string, std::string> DecodeBlob(std::span<const std::byte> p, size_t kv_len) {
  Reader in(p);
  std::string kv;
  if (!in.Tag(ObjectTag::kBlob) || !in.GetBytes(kv_len, kv)) return Corrupt("blob");
  return kv;
}

}  // namespace farmdb::storage
