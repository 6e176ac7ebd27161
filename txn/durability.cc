#include "txn/durability.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>

#include "txn/records.h"

namespace farmdb::txn {

namespace {
// While a commit waits for a stamp the watermark has not reached (a non-strict commit's W may lie
// a little ahead of the clock), the syncer looks again this often.
constexpr auto kDemandPoll = std::chrono::microseconds(50);
// An idle machine still stamps this often, so its last durable stamp (which bounds what recovery
// keeps of every machine's log after a power loss) does not fall far behind.
constexpr Timestamp kIdleStampLag = 1'000'000'000;
}  // namespace

Durability::Durability(cluster::Clock* clock, cluster::Wal* wal, std::chrono::milliseconds sync_interval,
                       bool ack_before_sync, MachineId self, Peers peers)
    : clock_(clock),
      wal_(wal),
      sync_interval_(sync_interval),
      ack_before_sync_(ack_before_sync),
      self_(self),
      peers_(std::move(peers)),
      received_(peers_.machines, 0),
      peer_durable_(new std::atomic<Timestamp>[peers_.machines]) {
  for (int m = 0; m < peers_.machines; ++m) peer_durable_[m].store(0);
}

Durability::~Durability() { Stop(); }

void Durability::Start() { syncer_ = std::thread([this] { SyncLoop(); }); }

void Durability::Stop() {
  {
    std::lock_guard l(mu_);
    if (stop_) return;
    stop_ = true;
    wanted_.notify_all();
  }
  if (syncer_.joinable()) syncer_.join();
  StampAndSync();
}

Timestamp Durability::Enter() {
  std::lock_guard l(mu_);
  Timestamp placeholder = clock_->Now().lower;
  in_flight_.insert(placeholder);
  return placeholder;
}

void Durability::Leave(Timestamp placeholder) {
  std::lock_guard l(mu_);
  in_flight_.erase(in_flight_.find(placeholder));
  if (demand_ > durable_stamp_.load(std::memory_order_relaxed)) wanted_.notify_one();
}

Timestamp Durability::Stampable() {
  if (peers_.machines == 1) return Watermark();
  return *std::ranges::min_element(received_);
}

Timestamp Durability::ClusterDurable() const {
  if (peers_.machines == 1) return DurableStamp();
  Timestamp low = ~Timestamp{0};
  for (int m = 0; m < peers_.machines; ++m) low = std::min(low, peer_durable_[m].load(std::memory_order_acquire));
  return low;
}

Timestamp Durability::Watermark() {
  // Every commit still in flight has W >= its placeholder; every later one registers a
  // placeholder >= the L read now (L never decreases on a Clock).
  if (!in_flight_.empty()) return *in_flight_.begin() - 1;
  auto now = clock_->TryNow();
  return now ? now->lower - 1 : 0;
}

bool Durability::WaitDurable(Timestamp w) {
  if (ClusterDurable() >= w) return true;
  if (peers_.demand) peers_.demand(w);
  Demand(w);
  durable_.Wait([&] { return ClusterDurable() >= w || abandoned_.load(); });
  return ClusterDurable() >= w;
}

void Durability::AbandonWaits() {
  abandoned_.store(true);
  durable_.NotifyAll();
}

void Durability::Demand(Timestamp w) {
  std::lock_guard l(mu_);
  if (w <= demand_) return;
  demand_ = w;
  wanted_.notify_one();
}

void Durability::OnWatermark(MachineId from, Timestamp x) {
  std::lock_guard l(mu_);
  if (from >= received_.size() || x <= received_[from]) return;
  received_[from] = x;
  if (demand_ > DurableStamp()) wanted_.notify_one();
}

void Durability::OnPeerDurable(MachineId from, Timestamp s) {
  if (from >= static_cast<MachineId>(peers_.machines)) return;
  Timestamp seen = peer_durable_[from].load();
  while (s > seen && !peer_durable_[from].compare_exchange_weak(seen, s)) {
  }
  durable_.NotifyAll();
}

Timestamp Durability::SyncNow() {
  StampAndSync();
  return DurableStamp();
}

void Durability::SyncLoop() {
  std::unique_lock l(mu_);
  while (!stop_) {
    const bool waited_for = demand_ > DurableStamp();
    // With several machines, the others' stamps wait for this one's watermark: send it once it
    // covers what is waited for (and on every round, below).
    if (peers_.machines > 1 && waited_for && sent_watermark_ < demand_) {
      const Timestamp x = Watermark();
      if (x >= demand_) {
        l.unlock();
        const bool sent = peers_.send_watermark(x);
        l.lock();
        if (sent) {
          sent_watermark_ = std::max(sent_watermark_, x);
          continue;
        }
      }
    }
    if (waited_for && Stampable() >= demand_) {
      l.unlock();
      StampAndSync();
      l.lock();
      continue;
    }
    wanted_.wait_for(l, waited_for ? std::chrono::duration_cast<std::chrono::nanoseconds>(kDemandPoll)
                                   : std::chrono::duration_cast<std::chrono::nanoseconds>(sync_interval_));
    if (stop_ || demand_ > DurableStamp()) continue;
    // No one waiting: the WAL writer's round (off commits), or an idle machine's stamp.
    if (peers_.machines > 1 && Watermark() > sent_watermark_) {
      const Timestamp x = Watermark();
      l.unlock();
      const bool sent = peers_.send_watermark(x);
      l.lock();
      if (sent) sent_watermark_ = std::max(sent_watermark_, x);
    }
    const bool unsynced = wal_->end() > wal_->durable();
    const bool stale = Stampable() > DurableStamp() + kIdleStampLag;
    if (unsynced || stale) {
      l.unlock();
      StampAndSync();
      l.lock();
    }
  }
}

void Durability::StampAndSync() {
  std::lock_guard s(sync_mu_);
  Timestamp x;
  {
    std::lock_guard l(mu_);
    x = Stampable();
  }
  if (x > last_stamp_) {
    uint64_t stamp = x;
    std::span<const std::byte> body = std::as_bytes(std::span(&stamp, 1));
    // Without room for a stamp the log cannot promise more than before; commits that wait for
    // one wait until a checkpoint frees space.
    if (wal_->Append(kWalStamp, std::span(&body, 1), /*small=*/true)) last_stamp_ = x;
  }
  const Timestamp published = last_stamp_;
  if (ack_before_sync_) Publish(published);
  if (auto synced = wal_->SyncTo(wal_->end()); !synced) {
    std::fprintf(stderr, "farmdb: FATAL: %s; stopping, as the log's state on disk is unknown\n",
                 synced.error().message.c_str());
    std::abort();
  }
  syncs_.fetch_add(1, std::memory_order_relaxed);
  (void)wal_->PrepareNextSegment();  // a full disk shows at the next append that needs it
  Publish(published);
}

void Durability::Publish(Timestamp stamp) {
  if (stamp <= DurableStamp()) return;
  durable_stamp_.store(stamp, std::memory_order_release);
  OnPeerDurable(self_, stamp);
  if (peers_.publish) peers_.publish(stamp);
}

}  // namespace farmdb::txn
