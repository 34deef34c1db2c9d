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
