#include <mmp/core/thread_pool.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

using namespace mmp;

TEST_CASE("parallelFor calls every index exactly once, for any thread count and size") {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (std::size_t n : {0u, 1u, 2u, 7u, 100u, 1001u}) {
      std::vector<std::atomic<int>> calls(n);
      pool.parallelFor(n, [&](std::size_t i) { calls[i]++; });
      for (std::size_t i = 0; i < n; ++i) CHECK(calls[i].load() == 1);
    }
  }
}

TEST_CASE("parallelFor rethrows the exception of the lowest failing index and stays usable") {
  ThreadPool pool(2);
  std::atomic<int> done{0};
  CHECK_THROWS_WITH(pool.parallelFor(500,
                                     [&](std::size_t i) {
                                       done++;
                                       if (i == 123 || i == 400) throw std::runtime_error("index " + std::to_string(i));
                                     }),
                    "index 123");
  CHECK(done.load() == 500);
  std::atomic<int> again{0};
  pool.parallelFor(10, [&](std::size_t) { again++; });
  CHECK(again.load() == 10);
}

#if defined(__SANITIZE_ADDRESS__)
#define MMP_TEST_ADDRESS_LIMIT 0  // AddressSanitizer reserves terabytes of shadow: no address-space limit
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MMP_TEST_ADDRESS_LIMIT 0
#endif
#endif
#ifndef MMP_TEST_ADDRESS_LIMIT
#define MMP_TEST_ADDRESS_LIMIT 1
#endif

#if MMP_TEST_ADDRESS_LIMIT
#include <csignal>
#include <string>
#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

// Under an address space that holds only a few more thread stacks (8 MiB each), asking for 64
// threads must give a working pool of fewer, not std::terminate (joinable threads destroyed while
// the constructor unwinds) or a worker left waiting forever.  Run in a forked child so the limit
// stays there; alarm() turns a hang into a failure rather than a stuck test.
TEST_CASE("a pool whose threads cannot all be created keeps the ones it has and works") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(60);
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (40u << 20);
    const rlimit rl{limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    int code = 0;
    {
      ThreadPool pool(64);
      if (pool.requestedThreads() != 64 || pool.threads() >= 64 || pool.threads() < 1) code = 4;
      std::vector<int> calls(1000, 0);
      pool.parallelFor(calls.size(), [&](std::size_t i) { calls[i]++; });
      for (int c : calls) if (c != 1) code = 5;
    }
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  // Before the fix: SIGALRM (14), the workers waiting forever on the pool being unwound.
  INFO("child status " << status << std::string(WIFSIGNALED(status) ? " (killed by a signal)" : ""));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
#endif
