#include "cluster/fibers.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace farmdb::cluster {
namespace {

using std::chrono::milliseconds;

struct SocketPair {
  int fiber_end = -1;  // the fiber's side
  int test_end = -1;
  SocketPair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    fiber_end = fds[0];
    test_end = fds[1];
  }
  ~SocketPair() {
    if (test_end >= 0) ::close(test_end);
  }
};

// What a session does: read one byte, waiting through the pool while there is none. Returns
// the byte, or -1 at EOF.
int ReadByte(int fd) {
  for (;;) {
    char c;
    ssize_t got = ::recv(fd, &c, 1, MSG_DONTWAIT);
    if (got == 1) return static_cast<unsigned char>(c);
    if (got == 0) return -1;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    FiberPool::WaitFd(fd, POLLIN, milliseconds(-1));
  }
}

char BlockingRead(int fd) {
  char c = 0;
  EXPECT_EQ(::recv(fd, &c, 1, 0), 1);
  return c;
}

// One worker runs every fiber, so each fiber waiting for its socket must leave the thread to
// the others: the test answers them in the reverse order of their start.
TEST(FiberPoolTest, FibersWaitingForTheirSocketsShareOneWorker) {
  constexpr int kFibers = 40;
  std::vector<SocketPair> pairs(kFibers);
  {
    FiberPool pool(1);
    for (SocketPair& p : pairs) {
      pool.Spawn([fd = p.fiber_end] {
        EXPECT_TRUE(FiberPool::OnFiber());
        // Echo each byte, plus one, until EOF.
        for (int c; (c = ReadByte(fd)) >= 0;) {
          char reply = static_cast<char>(c + 1);
          ASSERT_EQ(::send(fd, &reply, 1, MSG_NOSIGNAL), 1);
        }
        FiberPool::Forget(fd);
        ::close(fd);
      });
    }
    for (int round = 0; round < 3; ++round) {
      for (int i = kFibers - 1; i >= 0; --i) {
        char c = static_cast<char>('a' + round);
        ASSERT_EQ(::send(pairs[i].test_end, &c, 1, MSG_NOSIGNAL), 1);
        EXPECT_EQ(BlockingRead(pairs[i].test_end), c + 1) << "fiber " << i << " round " << round;
      }
    }
    for (SocketPair& p : pairs) ::shutdown(p.test_end, SHUT_WR);
  }  // the pool waits for every fiber to see EOF and return
  for (SocketPair& p : pairs) {
    char c;
    EXPECT_EQ(::recv(p.test_end, &c, 1, 0), 0) << "the fiber closed its end";
  }
}

// More fibers than the worker's ring holds send in one round: every byte arrives, in order per
// socket, and each Send returns what it sent.
TEST(FiberPoolTest, SendsOfOneRoundAllArrive) {
  constexpr int kFibers = 150;
  std::vector<SocketPair> pairs(kFibers);
  {
    FiberPool pool(1);
    for (int i = 0; i < kFibers; ++i) {
      pool.Spawn([fd = pairs[i].fiber_end, i] {
        for (int k = 0; k < 3; ++k) {
          std::string message = std::to_string(i) + ":" + std::to_string(k) + ";";
          EXPECT_EQ(FiberPool::Send(fd, message), static_cast<ssize_t>(message.size()));
        }
        ::close(fd);
      });
    }
  }
  for (int i = 0; i < kFibers; ++i) {
    std::string got;
    char buffer[256];
    for (ssize_t n; (n = ::recv(pairs[i].test_end, buffer, sizeof buffer, 0)) > 0;) got.append(buffer, n);
    std::string id = std::to_string(i);
    EXPECT_EQ(got, id + ":0;" + id + ":1;" + id + ":2;");
  }
}

// A send fails as send(2) with MSG_NOSIGNAL does: -1 and errno, no SIGPIPE; a full socket says
// EAGAIN, and after WaitFd(POLLOUT) the send goes through.
TEST(FiberPoolTest, SendReportsErrorsAsSendDoes) {
  SocketPair closed, full;
  ::close(closed.test_end);
  closed.test_end = -1;
  std::atomic<bool> filled{false};
  int sent_error = 0, full_error = 0;
  ssize_t after_wait = 0;
  {
    FiberPool pool(1);
    pool.Spawn([&] {
      EXPECT_EQ(FiberPool::Send(closed.fiber_end, "x"), -1);
      sent_error = errno;
      ::close(closed.fiber_end);
      std::string chunk(4096, 'z');
      while (FiberPool::Send(full.fiber_end, chunk) > 0) {
      }
      full_error = errno;
      filled = true;
      FiberPool::WaitFd(full.fiber_end, POLLOUT, milliseconds(-1));
      after_wait = FiberPool::Send(full.fiber_end, "y");
      FiberPool::Forget(full.fiber_end);
      ::close(full.fiber_end);
    });
    while (!filled) std::this_thread::sleep_for(milliseconds(1));
    char sink[1 << 16];
    while (::recv(full.test_end, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
  }
  EXPECT_EQ(sent_error, EPIPE);
  EXPECT_TRUE(full_error == EAGAIN || full_error == EWOULDBLOCK) << full_error;
  EXPECT_EQ(after_wait, 1);
}

std::vector<int> Cpus(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<int> AllowedCpus() {
  cpu_set_t allowed;
  EXPECT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  return Cpus(allowed);
}

// The CPUs the calling thread may run on.
std::vector<int> ThreadCpus() {
  cpu_set_t mine;
  EXPECT_EQ(::pthread_getaffinity_np(::pthread_self(), sizeof mine, &mine), 0);
  return Cpus(mine);
}

// Spawns one fiber per worker and returns the CPUs each one's worker may run on. A fiber goes
// to the worker with the fewest live fibers, so each one stays alive until all are spawned:
// one that ended early would send the next to its worker again.
std::vector<std::vector<int>> WorkerCpus(int workers, bool pin) {
  std::mutex mu;
  std::vector<std::vector<int>> seen;
  std::atomic<bool> all_spawned{false};
  {
    FiberPool pool(workers, pin);
    for (int i = 0; i < workers; ++i) {
      pool.Spawn([&] {
        {
          std::lock_guard l(mu);
          seen.push_back(ThreadCpus());
        }
        while (!all_spawned.load()) FiberPool::SleepFor(milliseconds(1));
      });
    }
    all_spawned = true;
  }
  std::sort(seen.begin(), seen.end());
  return seen;
}

TEST(FiberPoolTest, PinnedWorkersRunOnACpuEach) {
  std::vector<int> cpus = AllowedCpus();
  std::vector<std::vector<int>> expected;
  for (int cpu : cpus) expected.push_back({cpu});
  EXPECT_EQ(WorkerCpus(static_cast<int>(cpus.size()), true), expected);
}

TEST(FiberPoolTest, WorkersFloatWhenUnpinnedOrMoreThanCpus) {
  std::vector<int> cpus = AllowedCpus();
  int workers = static_cast<int>(cpus.size());
  EXPECT_EQ(WorkerCpus(workers, false), std::vector<std::vector<int>>(workers, cpus));
  EXPECT_EQ(WorkerCpus(workers + 1, true), std::vector<std::vector<int>>(workers + 1, cpus));
}

size_t OpenDescriptors() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                           std::filesystem::directory_iterator()));
}

// Its epoll, eventfd and ring go with the pool (tests and servers make many).
TEST(FiberPoolTest, APoolLeavesNoDescriptorsBehind) {
  size_t before = OpenDescriptors();
  {
    FiberPool pool(2);
    pool.Spawn([] {
      EXPECT_EQ(FiberPool::Send(-1, "x"), -1);
      EXPECT_EQ(errno, EBADF);
    });
  }
  EXPECT_EQ(OpenDescriptors(), before);
}

// A sleeping fiber does not hold its worker: a fiber started after it finishes first.
TEST(FiberPoolTest, SleepParksOnlyTheSleeper) {
  std::atomic<bool> sleeper_done{false};
  std::atomic<bool> other_saw_sleeper_done{true};
  {
    FiberPool pool(1);
    pool.Spawn([&] {
      FiberPool::SleepFor(milliseconds(500));
      sleeper_done = true;
    });
    pool.Spawn([&] { other_saw_sleeper_done = sleeper_done.load(); });
  }
  EXPECT_TRUE(sleeper_done);
  EXPECT_FALSE(other_saw_sleeper_done);
}

TEST(FiberPoolTest, SleepersWakeInDeadlineOrder) {
  std::mutex mu;
  std::vector<int> woke;
  {
    FiberPool pool(1);
    for (int ms : {60, 20, 40, 0}) {
      pool.Spawn([&, ms] {
        FiberPool::SleepFor(milliseconds(ms));
        std::lock_guard l(mu);
        woke.push_back(ms);
      });
    }
  }
  EXPECT_EQ(woke, (std::vector<int>{0, 20, 40, 60}));
}

TEST(FiberPoolTest, WaitFdTimesOutOnAQuietSocketAndWakesOnData) {
  SocketPair p;
  std::atomic<int> stage{0};
  std::atomic<bool> first_wait = true, second_wait = false;
  {
    FiberPool pool(1);
    pool.Spawn([&] {
      char c;
      EXPECT_LT(::recv(p.fiber_end, &c, 1, MSG_DONTWAIT), 0);
      first_wait = FiberPool::WaitFd(p.fiber_end, POLLIN, milliseconds(30));
      stage = 1;
      second_wait = FiberPool::WaitFd(p.fiber_end, POLLIN, milliseconds(60'000));
      EXPECT_EQ(::recv(p.fiber_end, &c, 1, MSG_DONTWAIT), 1);
      FiberPool::Forget(p.fiber_end);
      ::close(p.fiber_end);
    });
    while (stage.load() == 0) std::this_thread::sleep_for(milliseconds(1));
    ASSERT_EQ(::send(p.test_end, "x", 1, MSG_NOSIGNAL), 1);
  }
  EXPECT_FALSE(first_wait) << "nothing was sent before the timeout";
  EXPECT_TRUE(second_wait);
}

// Edge-triggered readiness comes once: bytes that arrive while the fiber sleeps still end its
// next wait.
TEST(FiberPoolTest, ReadinessThatArrivesWhileTheFiberIsBusyIsNotLost) {
  SocketPair p;
  std::atomic<bool> registered{false}, sent{false};
  std::atomic<bool> woke = false;
  std::chrono::steady_clock::duration waited{};
  {
    FiberPool pool(1);
    pool.Spawn([&] {
      EXPECT_FALSE(FiberPool::WaitFd(p.fiber_end, POLLIN, milliseconds(1)));  // registers it
      registered = true;
      while (!sent.load()) FiberPool::SleepFor(milliseconds(1));
      FiberPool::SleepFor(milliseconds(20));  // the worker hears of the bytes meanwhile
      auto start = std::chrono::steady_clock::now();
      woke = FiberPool::WaitFd(p.fiber_end, POLLIN, milliseconds(60'000));
      waited = std::chrono::steady_clock::now() - start;
      FiberPool::Forget(p.fiber_end);
      ::close(p.fiber_end);
    });
    while (!registered.load()) std::this_thread::sleep_for(milliseconds(1));
    ASSERT_EQ(::send(p.test_end, "x", 1, MSG_NOSIGNAL), 1);
    sent = true;
  }
  EXPECT_TRUE(woke);
  EXPECT_LT(waited, std::chrono::seconds(30));
}

TEST(FiberPoolTest, WaitsOffAFiberBlockTheThread) {
  EXPECT_FALSE(FiberPool::OnFiber());
  SocketPair p;
  EXPECT_FALSE(FiberPool::WaitFd(p.fiber_end, POLLIN, milliseconds(10)));
  ASSERT_EQ(::send(p.test_end, "x", 1, MSG_NOSIGNAL), 1);
  EXPECT_TRUE(FiberPool::WaitFd(p.fiber_end, POLLIN, milliseconds(-1)));
  FiberPool::Forget(p.fiber_end);  // nothing to forget off a fiber
  auto start = std::chrono::steady_clock::now();
  FiberPool::SleepFor(milliseconds(20));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(20));
  ::close(p.fiber_end);
}

// New fibers go to the worker with the fewest, and each stays on its worker.
TEST(FiberPoolTest, FibersSpreadOverWorkersAndStayPinned) {
  constexpr int kFibers = 8;
  std::vector<SocketPair> pairs(kFibers);
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int> moved{0};
  {
    FiberPool pool(2);
    ASSERT_EQ(pool.workers(), 2);
    for (SocketPair& p : pairs) {
      pool.Spawn([&, fd = p.fiber_end] {
        auto me = std::this_thread::get_id();
        {
          std::lock_guard l(mu);
          threads.insert(me);
        }
        while (ReadByte(fd) >= 0) {
          if (std::this_thread::get_id() != me) ++moved;
        }
        FiberPool::Forget(fd);
        ::close(fd);
      });
    }
    for (int round = 0; round < 5; ++round) {
      for (SocketPair& p : pairs) ASSERT_EQ(::send(p.test_end, "x", 1, MSG_NOSIGNAL), 1);
    }
    for (SocketPair& p : pairs) ::shutdown(p.test_end, SHUT_WR);
  }
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_EQ(moved.load(), 0);
}

// No workers: each body has a thread of its own, and its waits block that thread.
TEST(FiberPoolTest, WithoutWorkersEachBodyHasItsOwnThread) {
  constexpr int kBodies = 4;
  std::vector<SocketPair> pairs(kBodies);
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int> on_fiber{0}, started{0}, ended{0};
  {
    FiberPool pool(0);
    EXPECT_EQ(pool.workers(), 0);
    for (SocketPair& p : pairs) {
      pool.Spawn([&, fd = p.fiber_end] {
        {
          std::lock_guard l(mu);
          threads.insert(std::this_thread::get_id());
        }
        if (FiberPool::OnFiber()) ++on_fiber;
        ++started;
        char c;
        while (::recv(fd, &c, 1, 0) == 1) {
        }
        ::close(fd);
        ++ended;
      });
    }
    // Every body blocks in recv on its own thread, all at once (so no thread id is reused), and
    // the last one's data reaches it regardless.
    while (started.load() < kBodies) std::this_thread::sleep_for(milliseconds(1));
    ASSERT_EQ(::send(pairs.back().test_end, "x", 1, MSG_NOSIGNAL), 1);
    for (SocketPair& p : pairs) ::shutdown(p.test_end, SHUT_WR);
  }  // waits for every body
  EXPECT_EQ(ended.load(), kBodies);
  EXPECT_EQ(threads.size(), static_cast<size_t>(kBodies));
  EXPECT_EQ(on_fiber.load(), 0);
}

// A fiber's stack is its own: deep frames on one do not disturb another parked mid-call.
TEST(FiberPoolTest, ParkedFibersKeepTheirStacks) {
  SocketPair a, b;
  std::atomic<long> sum_a{0}, sum_b{0};
  auto deep = [](auto& self, int depth, int fd) -> long {
    volatile int frame[128];
    frame[0] = depth;
    if (depth == 0) return ReadByte(fd);
    return self(self, depth - 1, fd) + frame[0];
  };
  {
    FiberPool pool(1);
    pool.Spawn([&] {
      sum_a = deep(deep, 200, a.fiber_end);
      FiberPool::Forget(a.fiber_end);
      ::close(a.fiber_end);
    });
    pool.Spawn([&] {
      sum_b = deep(deep, 100, b.fiber_end);
      FiberPool::Forget(b.fiber_end);
      ::close(b.fiber_end);
    });
    ASSERT_EQ(::send(b.test_end, "\x01", 1, MSG_NOSIGNAL), 1);
    ASSERT_EQ(::send(a.test_end, "\x02", 1, MSG_NOSIGNAL), 1);
  }
  EXPECT_EQ(sum_a.load(), 2 + 200 * 201 / 2);
  EXPECT_EQ(sum_b.load(), 1 + 100 * 101 / 2);
}


// Every fiber waiting on an Event wakes at each NotifyAll, however the hand-over of several
// fibers to one worker interleaves with that worker waking up for the first of them: a
// commit's sync wakes all the sessions that wait for it.
TEST(FiberPoolTest, AnEventWakesEveryWaitingFiber) {
  constexpr int kFibers = 8, kRounds = 3000;
  FiberPool::Event event;
  std::atomic<int> round{0}, arrived{0};
  {
    FiberPool pool(1);
    for (int i = 0; i < kFibers; ++i) {
      pool.Spawn([&] {
        for (int r = 1; r <= kRounds; ++r) {
          event.Wait([&] { return round.load() >= r; });
          arrived.fetch_add(1);
        }
      });
    }
    for (int r = 1; r <= kRounds; ++r) {
      std::this_thread::sleep_for(std::chrono::microseconds(20));  // for the fibers to park
      round.store(r);
      event.NotifyAll();
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrived.load() < r * kFibers && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      if (arrived.load() < r * kFibers) {
        ADD_FAILURE() << "round " << r << ": " << r * kFibers - arrived.load()
                      << " fibers never woke";
        round.store(kRounds);  // the others' wake-up takes the stranded along, so the pool ends
        event.NotifyAll();
        break;
      }
    }
  }
}

}  // namespace
}  // namespace farmdb::cluster
