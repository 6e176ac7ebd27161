// FiberPool: worker threads that each run many sessions as stackful fibers (Boost.Context), so
// that while one session waits the worker runs another instead of the kernel switching threads
// (DESIGN.md §3).
//
// Why: with a thread per connection, every statement of a client that waits for each reply (as
// pgbench does) puts its thread to sleep in recv and the client's next message wakes it: 7.4
// sleeps per TPC-B-like transaction. A worker that finds its fiber's socket empty runs the
// next ready fiber instead, and sleeps in epoll_wait only when none is ready: 1.6 sleeps per
// transaction, and about a sixth less server CPU (sql/bench/RESULTS.md, "What limits the
// figures").
//
// What waits through the pool: a socket becoming readable or writable (WaitFd), a send (Send:
// until the worker's round of ready fibers ends), a sleep (SleepFor), a long computation's
// turn (TakeTurns: after kTurn on its worker, a fiber lets the others run), and an Event another
// thread signals (a commit waiting for its group's sync). All are meant for code that holds no lock while it waits, since a fiber that
// parked holding a mutex would block every other fiber of its worker that takes it. Other waits
// (a commit's lock replies and remote completions, clock uncertainty, log space) still block the
// worker thread, and with it the worker's other fibers, until they go through the pool too. On
// one machine they are short; across machines they last a network round trip.
//
// Fibers are pinned: a fiber runs only on the worker that started it, so per-thread caches
// (ThreadFront) stay warm and no fiber's stack is ever touched by two threads. New fibers go to
// the worker with the fewest.
//
// Off a fiber (any other thread), WaitFd and SleepFor block the calling thread, so code below
// the server calls them alike from sessions, tests and tools.
//
// A pool of no workers runs each body on a thread of its own instead, with no fiber: PostgreSQL's
// process per session. That suits bodies that spend their time in waits that block (a commit
// across machines): on a shared worker those waits would hold up every other fiber on it.
//
// Thread-safety: Spawn from any thread; the static members from the thread or fiber they are
// about.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace farmdb::cluster {

class FiberPool {
 public:
  // `workers` threads, each fiber with a stack of `stack_bytes` (mapped on use, with a guard
  // page below it, like a thread's); no workers: a thread per body.
  //
  // `pin_to_cpus`: worker i runs only on the i-th CPU the process may use (sched_getaffinity),
  // when there are no more workers than those CPUs; with more, they go where the kernel puts
  // them. Why: left to the kernel, both workers of a 2-core machine at times share one core
  // while the other runs only the clients, and a worker moves between cores with its sessions'
  // data; pinned, farmdb took less CPU per TPC-B-like transaction and had no slow runs
  // (sql/bench/RESULTS.md, "What limits the figures").
  explicit FiberPool(int workers, bool pin_to_cpus = false, size_t stack_bytes = size_t{8} << 20);
  // Waits until every body has returned; the owner makes them return (the server shuts their
  // sockets).
  ~FiberPool();
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  void Spawn(std::function<void()> body);
  int workers() const { return static_cast<int>(workers_.size()); }

  // Waits until `fd` may be ready for `events` (POLLIN, POLLOUT), or `timeout` passes (negative:
  // none). Returns false on the timeout. Readiness is edge-triggered on a fiber: the wait ends
  // at the socket's first change since the fiber last waited on it, so call it after a read or
  // write on `fd` failed with EAGAIN, and try that again afterwards (the change may have been
  // one already consumed). The socket stays registered with the fiber's worker until
  // Forget(fd), which must come before the descriptor is closed.
  static bool WaitFd(int fd, short events, std::chrono::milliseconds timeout);
  static void Forget(int fd);
  // send(2) with MSG_NOSIGNAL | MSG_DONTWAIT. On a fiber the send waits for the end of its
  // worker's round (every ready fiber has run) and goes out with the round's others in one
  // io_uring submission. Why: each send that wakes a client costs the kernel a wake-up and,
  // more often than not, a switch to the client at the system call's return; a client thread
  // woken by the first of a round's replies finds the rest already there (sql/bench/RESULTS.md,
  // "Sends in rounds").
  static ssize_t Send(int fd, std::string_view bytes);
  static void SleepFor(std::chrono::nanoseconds duration);
  // Called now and then by long computations (a statement's scan checking for a cancel): once
  // the fiber has run kTurn since it last waited, it goes behind the worker's other ready fibers
  // and sockets, so that one long statement delays the sessions sharing its worker by at most
  // about that much (and a cancel request for it gets read). Off a fiber: nothing.
  static constexpr std::chrono::milliseconds kTurn{5};
  static void TakeTurns();
  static bool OnFiber();

  struct Fiber;
  struct Worker;

  // A condition another thread makes true (a group commit's sync): Wait parks the calling fiber,
  // or blocks the calling thread off a fiber, until `done()` holds, checking it again after each
  // NotifyAll. Many fibers and threads may wait on one Event; NotifyAll from any thread.
  class Event {
   public:
    void Wait(const std::function<bool()>& done);
    void NotifyAll();

   private:
    std::mutex mu_;
    std::condition_variable threads_;
    std::vector<Fiber*> fibers_;  // guarded by mu_
  };

 private:
  // The bodies running on threads of their own (a pool of no workers).
  struct OwnThreads {
    std::mutex mu;
    std::condition_variable ended;
    size_t running = 0;  // guarded by mu
  };

  std::vector<std::unique_ptr<Worker>> workers_;
  OwnThreads own_threads_;
};

}  // namespace farmdb::cluster
