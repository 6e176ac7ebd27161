#include "cluster/fibers.h"

#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <span>
#include <thread>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace farmdb::cluster {
namespace {

namespace ctx = boost::context;
using Clock = std::chrono::steady_clock;

// Where a fiber switch starts and ends, told to the sanitizers, which otherwise take the new
// stack for an overflow of the old one (ASan) or lose track of what each context did (TSan).
struct StackBounds {
  const void* bottom = nullptr;
  size_t size = 0;
};

struct SwitchNotes {
  void* asan_fake_stack = nullptr;  // this context's, while another runs
  void* tsan_fiber = nullptr;
};

// Before leaving `from` for a context whose stack is `to`; `from` null: the leaving stack ends.
void StartSwitch([[maybe_unused]] SwitchNotes* from, [[maybe_unused]] const StackBounds& to,
                 [[maybe_unused]] void* to_tsan) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(from ? &from->asan_fake_stack : nullptr, to.bottom, to.size);
#endif
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(to_tsan, 0);
#endif
}

// On arrival in `self`; records the stack left behind in `left` (when not null).
void FinishSwitch([[maybe_unused]] SwitchNotes* self, [[maybe_unused]] StackBounds* left) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(self ? self->asan_fake_stack : nullptr, left ? &left->bottom : nullptr,
                                  left ? &left->size : nullptr);
#endif
}

}  // namespace

struct FiberPool::Fiber {
  std::function<void()> body;
  Worker* worker = nullptr;
  ctx::fiber self;  // while parked or not yet started: resumed by the worker
  ctx::fiber back;  // while running: the worker, resumed to park
  StackBounds stack;
  SwitchNotes notes;

  // The wait in progress (`waiting`): which events of registered_fd end it, and its timer.
  bool waiting = false;
  uint32_t wanted = 0;
  bool woken_by_fd = false;
  bool timed = false;
  std::multimap<Clock::time_point, Fiber*>::iterator timer;
  int registered_fd = -1;  // with the worker's epoll, for registered_events
  uint32_t registered_events = 0;
  // Events of registered_fd that arrived while the fiber was not waiting for them. Edge
  // triggered, they come once, so the next WaitFd that wants them returns at once.
  uint32_t missed_events = 0;
  Clock::time_point resumed;  // when it last began to run

  // The send in progress, issued by the worker with the others of its round (Send).
  int send_fd = -1;
  std::string_view send_bytes;
  int send_result = 0;  // bytes sent, or -errno
};

struct FiberPool::Worker {
  int epoll = -1;
  int wake = -1;  // eventfd: Spawn or stop
  std::mutex mu;
  std::vector<Fiber*> inbox;  // guarded by mu
  std::vector<Fiber*> woken;  // parked in Event::Wait and notified; guarded by mu
  bool stopping = false;      // guarded by mu
  std::atomic<size_t> fibers{0};

  // The worker thread's own.
  std::deque<Fiber*> ready;
  std::multimap<Clock::time_point, Fiber*> timers;
  bool stop_seen = false;
  StackBounds stack;
  SwitchNotes notes;
  std::thread thread;
  // The sends of this round's fibers, issued together in one io_uring_enter (Send); without a
  // ring (the kernel refused one) each fiber sends on its own.
  io_uring ring{};
  bool has_ring = false;
  std::vector<Fiber*> sending;
  int cpu = -1;  // the one it runs on; -1: any
};

namespace {

thread_local FiberPool::Fiber* current = nullptr;

void Wake(FiberPool::Worker& w, FiberPool::Fiber* f, bool by_fd) {
  if (!f->waiting) return;
  f->waiting = false;
  f->woken_by_fd = by_fd;
  if (f->timed) w.timers.erase(f->timer);
  f->timed = false;
  w.ready.push_back(f);
}

// Gives the worker back its thread until the fiber's wait ends.
void Park(FiberPool::Fiber* f, std::chrono::nanoseconds timeout) {
  FiberPool::Worker& w = *f->worker;
  f->waiting = true;
  if (timeout.count() >= 0) {
    f->timer = w.timers.emplace(Clock::now() + timeout, f);
    f->timed = true;
  }
  StartSwitch(&f->notes, w.stack, w.notes.tsan_fiber);
  f->back = std::move(f->back).resume();
  FinishSwitch(&f->notes, &w.stack);
}

// Runs `f` until it parks or returns; a fiber that returned is freed.
void Resume(FiberPool::Worker& w, FiberPool::Fiber* f) {
  current = f;
  f->resumed = Clock::now();
  StartSwitch(&w.notes, f->stack, f->notes.tsan_fiber);
  f->self = std::move(f->self).resume();
  FinishSwitch(&w.notes, nullptr);
  current = nullptr;
  if (f->self) return;
  // A socket the body left open must not wake a fiber that is gone.
  if (f->registered_fd >= 0) ::epoll_ctl(w.epoll, EPOLL_CTL_DEL, f->registered_fd, nullptr);
#if defined(__SANITIZE_THREAD__)
  __tsan_destroy_fiber(f->notes.tsan_fiber);
#endif
  delete f;
  w.fibers.fetch_sub(1, std::memory_order_relaxed);
}

void Start(FiberPool::Worker& w, FiberPool::Fiber* f, size_t stack_bytes) {
  ctx::protected_fixedsize_stack allocator(stack_bytes);
  ctx::stack_context stack = allocator.allocate();
  f->stack = {static_cast<char*>(stack.sp) - stack.size, stack.size};
#if defined(__SANITIZE_THREAD__)
  f->notes.tsan_fiber = __tsan_create_fiber(0);
#endif
  f->self = ctx::fiber(std::allocator_arg, ctx::preallocated(stack.sp, stack.size, stack), allocator,
                       [f](ctx::fiber&& back) {
                         FinishSwitch(nullptr, &f->worker->stack);
                         f->back = std::move(back);
                         f->body();
                         FiberPool::Worker& worker = *f->worker;
                         StartSwitch(nullptr, worker.stack, worker.notes.tsan_fiber);
                         return std::move(f->back);
                       });
  w.ready.push_back(f);
}

// epoll_pwait2 (Linux 5.11) waits for the next timer to the nanosecond. Where the kernel lacks
// it, or valgrind 3.19 (sql/bench/callgrind.sh) does not know it, epoll_wait waits that time
// rounded up to a millisecond, so no timer fires early; retrying epoll_pwait2 would spin.
int WaitForEvents(int epoll, std::span<epoll_event> events, const timespec* timeout) {
  static std::atomic<bool> without_pwait2{false};
  if (!without_pwait2.load(std::memory_order_relaxed)) {
    int n = ::epoll_pwait2(epoll, events.data(), static_cast<int>(events.size()), timeout, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    without_pwait2.store(true, std::memory_order_relaxed);
  }
  int ms = -1;
  if (timeout) {
    int64_t rounded_up = timeout->tv_sec * 1000 + (timeout->tv_nsec + 999'999) / 1'000'000;
    ms = static_cast<int>(std::min<int64_t>(rounded_up, std::numeric_limits<int>::max()));
  }
  return ::epoll_wait(epoll, events.data(), static_cast<int>(events.size()), ms);
}

constexpr unsigned kRingEntries = 64;

// Sends `batch` through the ring in one system call and wakes its fibers with the results.
// MSG_DONTWAIT completes each send within the submission, as send(2) would, and
// IORING_SETUP_SUBMIT_ALL keeps a failed send (a closed socket) from stopping those after it.
// Returns how many went through the ring: all, unless the kernel took fewer, in which case the
// ring is given up for good, since entries left in it must never be taken later.
size_t SendThroughRing(FiberPool::Worker& w, std::span<FiberPool::Fiber*> batch) {
  for (FiberPool::Fiber* f : batch) {
    io_uring_sqe* sqe = io_uring_get_sqe(&w.ring);
    io_uring_prep_send(sqe, f->send_fd, f->send_bytes.data(), f->send_bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    io_uring_sqe_set_data(sqe, f);
  }
  int submitted;
  while ((submitted = io_uring_submit(&w.ring)) == -EINTR) {
  }
  if (submitted < static_cast<int>(batch.size())) {
    w.has_ring = false;
    submitted = std::max(submitted, 0);
  }
  for (int done = 0; done < submitted; ++done) {
    io_uring_cqe* cqe;
    int waited;
    while ((waited = io_uring_wait_cqe(&w.ring, &cqe)) == -EINTR) {
    }
    if (waited != 0) {
      // Only a corrupt ring fails here, and its sends may or may not have gone out.
      std::fprintf(stderr, "io_uring_wait_cqe: %s\n", std::strerror(-waited));
      std::abort();
    }
    auto* f = static_cast<FiberPool::Fiber*>(io_uring_cqe_get_data(cqe));
    f->send_result = cqe->res;
    io_uring_cqe_seen(&w.ring, cqe);
    Wake(w, f, true);
  }
  return static_cast<size_t>(submitted);
}

// The sends of the round just run (Send), in batches of the ring's size.
void IssueSends(FiberPool::Worker& w) {
  for (std::span<FiberPool::Fiber*> left(w.sending); !left.empty();) {
    auto batch = left.first(std::min<size_t>(left.size(), kRingEntries));
    left = left.subspan(batch.size());
    size_t through_ring = w.has_ring ? SendThroughRing(w, batch) : 0;
    for (FiberPool::Fiber* f : batch.subspan(through_ring)) {
      ssize_t sent = ::send(f->send_fd, f->send_bytes.data(), f->send_bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      f->send_result = sent >= 0 ? static_cast<int>(sent) : -errno;
      Wake(w, f, true);
    }
  }
  w.sending.clear();
}

void RunWorker(FiberPool::Worker& w, size_t stack_bytes) {
#if defined(__SANITIZE_THREAD__)
  w.notes.tsan_fiber = __tsan_get_current_fiber();
#endif
  if (w.cpu >= 0) {
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(w.cpu, &only);
    // A failure (the CPU went offline since the pool looked) leaves the worker unpinned.
    ::pthread_setaffinity_np(::pthread_self(), sizeof only, &only);
  }
  // Kernels before 6.0 (no IORING_SETUP_SINGLE_ISSUER) or a seccomp filter refusing io_uring
  // leave the worker without a ring: each fiber then sends on its own.
  w.has_ring = io_uring_queue_init(kRingEntries, &w.ring, IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER) == 0;
  const bool ring_made = w.has_ring;
  epoll_event events[64];
  for (;;) {
    while (!w.ready.empty() || !w.sending.empty()) {
      while (!w.ready.empty()) {
        FiberPool::Fiber* f = w.ready.front();
        w.ready.pop_front();
        Resume(w, f);
      }
      if (!w.sending.empty()) IssueSends(w);
    }
    if (w.stop_seen && w.fibers.load(std::memory_order_relaxed) == 0) break;
    timespec timeout{};
    timespec* wait = nullptr;  // none: until an event
    if (!w.timers.empty()) {
      auto left = std::max(w.timers.begin()->first - Clock::now(), Clock::duration::zero());
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      timeout = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
      wait = &timeout;
    }
    int n = WaitForEvents(w.epoll, events, wait);
    for (int i = 0; i < n; ++i) {
      if (auto* f = static_cast<FiberPool::Fiber*>(events[i].data.ptr)) {
        if (f->waiting && (events[i].events & f->wanted)) {
          Wake(w, f, true);
        } else {
          f->missed_events |= events[i].events;
        }
        continue;
      }
      uint64_t count;
      [[maybe_unused]] ssize_t drained = ::read(w.wake, &count, sizeof count);
      std::vector<FiberPool::Fiber*> inbox, woken;
      {
        std::lock_guard l(w.mu);
        inbox.swap(w.inbox);
        woken.swap(w.woken);
        w.stop_seen = w.stopping;
      }
      for (FiberPool::Fiber* f : inbox) Start(w, f, stack_bytes);
      for (FiberPool::Fiber* f : woken) Wake(w, f, false);
    }
    for (auto now = Clock::now(); !w.timers.empty() && w.timers.begin()->first <= now;) {
      Wake(w, w.timers.begin()->second, false);
    }
  }
  if (ring_made) io_uring_queue_exit(&w.ring);
}

// The CPUs this process may run on, in order.
std::vector<int> AllowedCpus() {
  cpu_set_t allowed;
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace

FiberPool::FiberPool(int workers, bool pin_to_cpus, size_t stack_bytes) {
  std::vector<int> cpus = pin_to_cpus ? AllowedCpus() : std::vector<int>{};
  const bool pin = pin_to_cpus && static_cast<size_t>(workers) <= cpus.size();
  for (int i = 0; i < workers; ++i) {
    auto w = std::make_unique<Worker>();
    if (pin) w->cpu = cpus[i];
    w->epoll = ::epoll_create1(EPOLL_CLOEXEC);
    w->wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    ::epoll_ctl(w->epoll, EPOLL_CTL_ADD, w->wake, &ev);
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) {
    w->thread = std::thread([w = w.get(), stack_bytes] { RunWorker(*w, stack_bytes); });
  }
}

FiberPool::~FiberPool() {
  {
    std::unique_lock l(own_threads_.mu);
    own_threads_.ended.wait(l, [&] { return own_threads_.running == 0; });
  }
  for (auto& w : workers_) {
    {
      std::lock_guard l(w->mu);
      w->stopping = true;
    }
    uint64_t one = 1;
    [[maybe_unused]] ssize_t written = ::write(w->wake, &one, sizeof one);
  }
  for (auto& w : workers_) {
    w->thread.join();
    ::close(w->epoll);
    ::close(w->wake);
  }
}

void FiberPool::Spawn(std::function<void()> body) {
  if (workers_.empty()) {
    {
      std::lock_guard l(own_threads_.mu);
      ++own_threads_.running;
    }
    std::thread([this, body = std::move(body)]() mutable {
      body();
      body = nullptr;  // its captures go before the pool may
      // Notified under the lock: the destructor cannot return, and free `ended`, before this
      // thread lets go of the lock.
      std::lock_guard l(own_threads_.mu);
      --own_threads_.running;
      own_threads_.ended.notify_all();
    }).detach();
    return;
  }
  Worker* w = workers_.front().get();
  for (auto& candidate : workers_) {
    if (candidate->fibers.load(std::memory_order_relaxed) < w->fibers.load(std::memory_order_relaxed)) {
      w = candidate.get();
    }
  }
  w->fibers.fetch_add(1, std::memory_order_relaxed);
  auto* f = new Fiber;
  f->body = std::move(body);
  f->worker = w;
  {
    std::lock_guard l(w->mu);
    w->inbox.push_back(f);
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t written = ::write(w->wake, &one, sizeof one);
}

bool FiberPool::OnFiber() { return current != nullptr; }

bool FiberPool::WaitFd(int fd, short events, std::chrono::milliseconds timeout) {
  Fiber* f = current;
  if (!f) {
    pollfd p{fd, events, 0};
    int ready;
    while ((ready = ::poll(&p, 1, timeout.count() < 0 ? -1 : static_cast<int>(timeout.count()))) < 0 &&
           errno == EINTR) {
    }
    return ready != 0;
  }
  // Edge-triggered: the worker hears of each change once, and only the fiber that registered
  // the socket waits on it, so a registration lasts as long as the socket.
  uint32_t wanted = EPOLLERR | EPOLLHUP;
  if (events & POLLIN) wanted |= EPOLLIN | EPOLLRDHUP;
  if (events & POLLOUT) wanted |= EPOLLOUT;
  if (f->registered_fd != fd || (wanted & ~f->registered_events) != 0) {
    if (f->registered_fd != fd) Forget(f->registered_fd);
    epoll_event ev{};
    ev.events = f->registered_events | wanted | EPOLLET;
    ev.data.ptr = f;
    int op = f->registered_fd == fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (::epoll_ctl(f->worker->epoll, op, fd, &ev) != 0) {
      return true;  // not a pollable descriptor: the caller's retry reports the error
    }
    f->registered_fd = fd;
    f->registered_events = ev.events & ~EPOLLET;
  }
  const bool missed = (f->missed_events & wanted) != 0;
  f->missed_events = 0;
  if (missed) return true;
  f->wanted = wanted;
  Park(f, timeout.count() < 0 ? std::chrono::nanoseconds(-1) : std::chrono::nanoseconds(timeout));
  return f->woken_by_fd;
}

void FiberPool::Forget(int fd) {
  Fiber* f = current;
  if (!f || fd < 0 || f->registered_fd != fd) return;
  ::epoll_ctl(f->worker->epoll, EPOLL_CTL_DEL, fd, nullptr);
  f->registered_fd = -1;
  f->registered_events = 0;
  f->missed_events = 0;
}

ssize_t FiberPool::Send(int fd, std::string_view bytes) {
  Fiber* f = current;
  if (!f || !f->worker->has_ring) return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  f->send_fd = fd;
  // A short send, as send(2) may make: the ring's length and result are 32-bit.
  f->send_bytes = bytes.substr(0, size_t{1} << 30);
  f->worker->sending.push_back(f);
  f->wanted = 0;
  Park(f, std::chrono::nanoseconds(-1));
  if (f->send_result >= 0) return f->send_result;
  errno = -f->send_result;
  return -1;
}

void FiberPool::SleepFor(std::chrono::nanoseconds duration) {
  Fiber* f = current;
  if (!f) {
    std::this_thread::sleep_for(duration);
    return;
  }
  f->wanted = 0;
  Park(f, std::max(duration, std::chrono::nanoseconds::zero()));
}

void FiberPool::Event::Wait(const std::function<bool()>& done) {
  std::unique_lock l(mu_);
  Fiber* f = current;
  if (!f) {
    threads_.wait(l, done);
    return;
  }
  while (!done()) {
    // NotifyAll may hand the fiber to its worker before it parks: the worker is this thread,
    // busy running the fiber, so it wakes the fiber only once it has parked.
    fibers_.push_back(f);
    l.unlock();
    f->wanted = 0;
    Park(f, std::chrono::nanoseconds(-1));
    l.lock();
  }
}

void FiberPool::Event::NotifyAll() {
  std::vector<Fiber*> fibers;
  {
    std::lock_guard l(mu_);
    fibers.swap(fibers_);
    threads_.notify_all();
  }
  // A worker gets all its fibers in one hand-over and then one wake-up: a wake-up before a later
  // hand-over could be taken (the eventfd drained, `woken` emptied) before that hand-over lands,
  // and nothing would wake the worker for it.
  std::ranges::sort(fibers, std::less<>{}, &Fiber::worker);
  for (auto first = fibers.begin(); first != fibers.end();) {
    Worker* w = (*first)->worker;
    auto last = std::find_if(first, fibers.end(), [w](Fiber* f) { return f->worker != w; });
    {
      std::lock_guard l(w->mu);
      w->woken.insert(w->woken.end(), first, last);
    }
    uint64_t one = 1;
    [[maybe_unused]] ssize_t written = ::write(w->wake, &one, sizeof one);
    first = last;
  }
}

void FiberPool::TakeTurns() {
  Fiber* f = current;
  if (!f || Clock::now() - f->resumed < kTurn) return;
  // A timer due now: the worker polls its sockets, runs what is ready, and then this fiber.
  f->wanted = 0;
  Park(f, std::chrono::nanoseconds::zero());
}

}  // namespace farmdb::cluster
