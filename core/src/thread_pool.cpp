#include <mmp/core/thread_pool.hpp>

#include <algorithm>
#include <new>
#include <system_error>

namespace mmp {

ThreadPool::ThreadPool(int threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  requested_ = std::max(1, threads);
  for (int i = 1; i < threads; ++i) {
    // A thread the system cannot create (an address-space limit, the kernel's map or task limit)
    // leaves the pool with the workers it has: the results do not depend on the thread count, and
    // unwinding here would destroy joinable threads waiting on wake_ (std::terminate, or a hang).
    try {
      workers_.emplace_back([this] { workerLoop(); });
    } catch (const std::system_error&) {
      break;
    } catch (const std::bad_alloc&) {
      break;
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

// Claims chunks of about n / (8 threads) indices under the lock, so that cheap bodies (a letter's
// oracle) do not contend on it and costly ones (a planner's) still balance.
void ThreadPool::runChunks() {
  for (;;) {
    std::size_t begin, end;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_ >= n_) return;
      const std::size_t chunk = std::max<std::size_t>(1, n_ / (8 * static_cast<std::size_t>(threads())));
      begin = next_;
      end = std::min(n_, begin + chunk);
      next_ = end;
    }
    for (std::size_t i = begin; i < end; ++i) {
      try {
        (*body_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_ || i < error_index_) {
          error_ = std::current_exception();
          error_index_ = i;
        }
      }
    }
  }
}

void ThreadPool::workerLoop() {
  unsigned long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      ++busy_;
    }
    runChunks();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --busy_;
    }
    done_.notify_all();
  }
}

void ThreadPool::parallelFor(std::size_t n, const std::function<void(std::size_t)>& body) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    n_ = n;
    next_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  runChunks();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0 && next_ >= n_; });
    body_ = nullptr;
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace mmp
