// ThreadPool: a fixed set of worker threads for running independent oracle calls in parallel.
//
// parallelFor(n, body) calls body(i) once for every i in [0, n) and returns when all are done.
// Callers write each i's result into its own slot and reduce the slots in index order afterwards,
// so the result does not depend on the number of threads (bit for bit).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mmp {

class ThreadPool {
 public:
  /// threads <= 1 runs every body on the calling thread; threads == 0 means hardware concurrency.
  /// If the system refuses to create a thread, the pool keeps the ones it has (threads() <
  /// requestedThreads(); at worst the calling thread alone): never throws for that.
  explicit ThreadPool(int threads = 1);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The threads that run bodies: the workers created plus the calling thread.
  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  /// The threads asked for (hardware concurrency for 0); more than threads() if creating one failed.
  int requestedThreads() const { return requested_; }

  /*!
      ensures
          - calls body(i) exactly once for each i in [0, n), on this thread and the workers
          - if a body throws, the exception of the lowest failing index is rethrown here after
            every started body has finished
      Not reentrant: do not call parallelFor from inside a body.
  !*/
  void parallelFor(std::size_t n, const std::function<void(std::size_t)>& body);

 private:
  void workerLoop();
  void runChunks();

  std::vector<std::thread> workers_;
  int requested_ = 1;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* body_ = nullptr;
  std::size_t n_ = 0;
  std::size_t next_ = 0;
  std::size_t busy_ = 0;
  unsigned long generation_ = 0;
  bool stopping_ = false;
  std::size_t error_index_ = 0;
  std::exception_ptr error_;
};

}  // namespace mmp
