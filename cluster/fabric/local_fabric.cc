#include "cluster/fabric/local_fabric.h"

#include <algorithm>

#include "cluster/fabric/word_copy.h"

namespace farmdb::cluster {

LocalFabric::LocalFabric(int machines, uint64_t seed) : rng_(seed) {
  for (int i = 0; i < machines; ++i) {
    nics_.push_back(std::make_unique<Nic>());
    for (int j = 0; j < machines; ++j) nics_.back()->pairs.push_back(std::make_unique<Pair>());
  }
  for (int i = 0; i < machines; ++i) {
    nics_[i]->thread = std::thread([this, i] { NicLoop(static_cast<MachineId>(i)); });
  }
}

LocalFabric::~LocalFabric() { Shutdown(); }

void LocalFabric::Shutdown() {
  if (stop_.exchange(true)) return;
  for (auto& nic : nics_) {
    { std::lock_guard lock(nic->mu); }
    nic->cv.notify_all();
    nic->thread.join();
    for (auto& [due, op] : nic->queue) {
      if (op.completion) op.completion->Finish(false);
    }
    nic->queue.clear();
  }
}

void LocalFabric::Register(MachineId owner, uint64_t key, std::span<std::byte> mem) {
  std::unique_lock lock(mem_mu_);
  memory_[{owner, key}] = mem;
}

void LocalFabric::Unregister(MachineId owner, uint64_t key) {
  std::unique_lock lock(mem_mu_);
  memory_.erase({owner, key});
}

void LocalFabric::SetWriteNotifier(MachineId owner, uint64_t key, std::function<void()> notify) {
  std::unique_lock lock(mem_mu_);
  if (notify) {
    notifiers_[{owner, key}] = std::move(notify);
  } else {
    notifiers_.erase({owner, key});
  }
}

void LocalFabric::SetHandler(MachineId m, MessageHandler handler) {
  std::lock_guard lock(nics_[m]->mu);
  nics_[m]->handler = std::move(handler);
}

void LocalFabric::AllowInlineDelivery(MachineId m, uint16_t type) {
  nics_[m]->inline_types.at(type).store(true, std::memory_order_release);
}

void LocalFabric::SetFaults(const FaultPolicy& policy) {
  std::lock_guard lock(fault_mu_);
  policy_ = policy;
  faults_active_.store(policy.max_delay.count() > 0 || policy.drop_probability > 0 ||
                       !cuts_.empty());
}

void LocalFabric::SetPartitioned(MachineId a, MachineId b, bool cut) {
  {
    std::lock_guard lock(fault_mu_);
    for (auto p : {std::pair{a, b}, std::pair{b, a}}) {
      if (cut) {
        cuts_.insert(p);
      } else {
        cuts_.erase(p);
      }
    }
    faults_active_.store(policy_.max_delay.count() > 0 || policy_.drop_probability > 0 ||
                         !cuts_.empty());
  }
  for (MachineId m : {a, b}) {
    // Through the mutex, so a fabric thread that just found an operation blocked is waiting
    // by now and sees the notification.
    { std::lock_guard lock(nics_[m]->mu); }
    nics_[m]->cv.notify_all();
  }
}

void LocalFabric::SetPaused(MachineId m, bool paused) {
  nics_[m]->paused.store(paused);
  { std::lock_guard lock(nics_[m]->mu); }
  nics_[m]->cv.notify_all();
}

bool LocalFabric::IsPaused(MachineId m) const { return nics_[m]->paused.load(); }

bool LocalFabric::Blocked(MachineId from, MachineId to) const {
  if (nics_[to]->paused.load()) return true;
  if (!faults_active_.load(std::memory_order_relaxed)) return false;
  std::lock_guard lock(fault_mu_);
  return cuts_.contains({from, to});
}

std::chrono::microseconds LocalFabric::DrawDelay(bool* drop, uint16_t type, bool is_message) {
  *drop = false;
  if (!faults_active_.load(std::memory_order_relaxed)) return {};
  std::lock_guard lock(fault_mu_);
  if (is_message && policy_.drop_probability > 0 &&
      std::ranges::find(policy_.droppable_types, type) != policy_.droppable_types.end() &&
      rng_.Chance(policy_.drop_probability)) {
    *drop = true;
  }
  auto span = policy_.max_delay - policy_.min_delay;
  if (policy_.max_delay.count() == 0) return {};
  return policy_.min_delay + std::chrono::microseconds(rng_.Uniform(span.count() + 1));
}

bool LocalFabric::Execute(MachineId to, const Op& op) {
  std::shared_lock lock(mem_mu_);
  auto it = memory_.find({to, op.key});
  size_t len = op.kind == OpKind::kRead ? op.dst.size() : op.data.size();
  if (it == memory_.end() || op.offset + len > it->second.size()) return false;
  std::byte* base = it->second.data() + op.offset;
  if (op.kind == OpKind::kRead) {
    CopyOut(base, op.dst.data(), len);
  } else {
    CopyIn(base, op.data.data(), len);
    // Under the shared lock, so a notifier being cleared is not running afterwards.
    if (!notifiers_.empty()) {
      if (auto n = notifiers_.find({to, op.key}); n != notifiers_.end()) n->second();
    }
  }
  return true;
}

void LocalFabric::Enqueue(MachineId to, Op op) {
  Nic& nic = *nics_[to];
  {
    std::lock_guard lock(nic.mu);
    auto due = op.due;
    nic.queue.emplace(due, std::move(op));
  }
  nic.cv.notify_one();
}

CompletionPtr LocalFabric::Read(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                                std::span<std::byte> dst) {
  auto c = std::make_shared<Completion>();
  bool drop;
  auto delay = DrawDelay(&drop, 0, false);
  Op op{std::chrono::steady_clock::now() + delay, OpKind::kRead, from, key, offset, dst, {}, 0, c};
  return SubmitOneSided(to, std::move(op), delay);
}

CompletionPtr LocalFabric::SubmitOneSided(MachineId to, Op op, std::chrono::microseconds delay) {
  CompletionPtr c = op.completion;
  Pair& pair = *nics_[to]->pairs[op.from];
  std::lock_guard lock(pair.mu);
  if (pair.pending == 0 && delay.count() == 0 && !Blocked(op.from, to)) {
    c->Finish(Execute(to, op));
    return c;
  }
  // Equal due times are executed in queue order, which is issue order here.
  op.due = std::max(op.due, pair.last_due);
  pair.last_due = op.due;
  ++pair.pending;
  Enqueue(to, std::move(op));
  return c;
}

CompletionPtr LocalFabric::Write(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                                 std::span<const std::byte> src) {
  auto c = std::make_shared<Completion>();
  bool drop;
  auto delay = DrawDelay(&drop, 0, false);
  Op op{std::chrono::steady_clock::now() + delay, OpKind::kWrite, from, key, offset, {},
        std::vector<std::byte>(src.begin(), src.end()), 0, c};
  return SubmitOneSided(to, std::move(op), delay);
}

void LocalFabric::Send(MachineId to, Message msg) {
  bool drop;
  auto delay = DrawDelay(&drop, msg.type, true);
  if (drop) return;
  Nic& nic = *nics_[to];
  if (delay.count() == 0 && msg.type < kMaxInlineTypes &&
      nic.inline_types[msg.type].load(std::memory_order_acquire) && !Blocked(msg.from, to)) {
    // After Shutdown nothing is delivered any more, as the fabric threads drop what is queued.
    // The handler was set before the type was allowed (acquire above), and never changes.
    if (!stop_.load()) nic.handler(std::move(msg));
    return;
  }
  Enqueue(to, Op{std::chrono::steady_clock::now() + delay, OpKind::kMessage, msg.from, 0, 0, {},
                 std::move(msg.body), msg.type, nullptr});
}

void LocalFabric::NicLoop(MachineId m) {
  Nic& nic = *nics_[m];
  std::unique_lock lock(nic.mu);
  while (!stop_.load()) {
    auto now = std::chrono::steady_clock::now();
    // The ready operation that fell due first (so delays, not queue order, decide the order of
    // delivery even when this thread runs late); blocked or not-yet-due ones wait.
    auto ready = nic.queue.end();
    for (auto it = nic.queue.begin(); it != nic.queue.end() && it->first <= now; ++it) {
      if (!Blocked(it->second.from, m)) {
        ready = it;
        break;
      }
    }
    if (ready == nic.queue.end()) {
      // Sleep until the next operation falls due; what else can make one ready (a new one, a
      // healed partition, a resumed machine, Shutdown) notifies the condition variable.
      if (auto later = nic.queue.upper_bound(now); later != nic.queue.end()) {
        nic.cv.wait_until(lock, later->first);
      } else {
        nic.cv.wait(lock);
      }
      continue;
    }
    Op op = std::move(ready->second);
    nic.queue.erase(ready);
    MessageHandler handler = nic.handler;
    lock.unlock();
    if (op.kind == OpKind::kMessage) {
      if (handler) handler(Message{op.from, op.type, std::move(op.data)});
    } else {
      bool ok = Execute(m, op);
      {
        Pair& pair = *nic.pairs[op.from];
        std::lock_guard pair_lock(pair.mu);
        --pair.pending;
      }
      op.completion->Finish(ok);
    }
    lock.lock();
  }
}

}  // namespace farmdb::cluster
