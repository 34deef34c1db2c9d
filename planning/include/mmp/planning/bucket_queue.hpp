// The open lists of GridPlanner: monotone priority queues over the keys f = g + h of one search.
//
//   - BucketQueue (narrow cost ranges): keys fall into buckets of a fixed width on a ring that covers
//     the largest jump of a key above the last pop (`span`), so a push is an append and a pop takes
//     the lowest non-empty bucket.  The width is at most the smallest reduced step cost (step - h(u)
//     + h(v)), so every key in the current bucket is already final (Dial's argument: a relaxation
//     adds at least one width) and a bucket pops in any order; entries are bare 4-byte cells.
//   - RadixQueue (radix_queue.hpp, any cost range): the same buckets of a fixed width, numbered,
//     kept in a radix heap over the bucket numbers instead of a ring, so its cost does not grow
//     with the range.
//   - HeapQueue (here): a binary heap of (key, cell) in exact key order, for a search whose cost
//     range is unknown (lazy costs without an upper bound) and as the reference the other two are
//     tested against.
//
// The order among keys of one bucket (or equal keys in the heap) is deliberately left open: the
// planner's path does not depend on it (GridPlanner's tie rule picks each step of the path from the
// optimal costs alone, after the search), so no queue has to reproduce another's order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace mmp {

class BucketQueue {
 public:
  static constexpr bool kCanLookAhead = true;  ///< upcoming() is available: the caller may prefetch

  /// The ring size a span needs at a bucket width; more than kMaxBuckets means "use a RadixQueue".
  static double bucketsFor(double span, double width) { return span / width + 2.0; }
  static constexpr std::size_t kMaxBuckets = std::size_t{1} << 16;

  /// Starts empty with keys >= base and pushes at most `span` above the last pop.
  /// requires: bucketsFor(span, width) <= kMaxBuckets.
  void reset(double base, double width, double span) {
    std::size_t buckets = 4;
    while (static_cast<double>(buckets) < bucketsFor(span, width)) buckets *= 2;
    if (ring_.size() < buckets) ring_.resize(buckets);
    for (auto& b : ring_) b.size = 0;
    current_.size = 0;
    mask_ = buckets - 1;
    base_ = base;
    inverse_width_ = 1.0 / width;
    bucket_ = 0;
    size_ = 0;
  }

  bool empty() const { return size_ == 0; }

  void push(double key, std::uint32_t cell) { pushIf(true, key, cell); }

  /// push(key, cell) if keep, without a branch on keep: the cell is written past the bucket's end
  /// either way and counted only if kept.  requires: a finite key, kept or not.
  void pushIf(bool keep, double key, std::uint32_t cell) {
    // A key below the base (a dropped one may be) wraps to a large index: some bucket of the ring.
    const auto index = static_cast<std::uint64_t>(static_cast<std::int64_t>((key - base_) * inverse_width_));
    Bucket& b = index <= bucket_ ? current_ : ring_[index & mask_];  // the current bucket (or an ulp below it)
    if (b.size == b.cells.size()) b.cells.resize(2 * b.size + 64);
    b.cells[b.size] = cell;
    b.size += keep;
    size_ += keep;
  }

  /// requires: !empty().  ensures: returns the cell of a key in the lowest non-empty bucket.
  std::uint32_t pop() {
    while (current_.size == 0) {
      ++bucket_;
      std::swap(current_, ring_[bucket_ & mask_]);
    }
    --size_;
    return current_.cells[--current_.size];
  }

  /// A cell that pop() will return soon (ahead pops from now, unless pushes come first), or none:
  /// lets the caller prefetch its data.  Returns false when there is none.
  bool upcoming(std::size_t ahead, std::uint32_t& cell) const {
    if (current_.size < ahead) return false;
    cell = current_.cells[current_.size - ahead];
    return true;
  }

  std::size_t bytesReserved() const {
    std::size_t bytes = current_.cells.size() * sizeof(std::uint32_t) + ring_.capacity() * sizeof(ring_[0]);
    for (const auto& b : ring_) bytes += b.cells.size() * sizeof(std::uint32_t);
    return bytes;
  }

 private:
  // A bucket's first `size` cells; its storage only grows, so a push is a store and a count (push_back
  // and pop_back measured slower on bench_astar's full search).
  struct Bucket {
    std::vector<std::uint32_t> cells;
    std::size_t size = 0;
  };
  std::vector<Bucket> ring_;
  Bucket current_;
  std::size_t mask_ = 3;
  double base_ = 0.0, inverse_width_ = 1.0;
  std::uint64_t bucket_ = 0;
  std::size_t size_ = 0;
};

/// A binary heap of (key, cell): pops in exact key order whatever the keys, O(log n) a pop.
class HeapQueue {
 public:
  static constexpr bool kCanLookAhead = false;  ///< a heap has no cheap look-ahead

  void reset() {
    heap_.clear();
  }
  bool empty() const { return heap_.empty(); }
  void push(double key, std::uint32_t cell) {
    heap_.push_back({key, cell});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  /// requires: !empty().  ensures: returns the cell of a smallest key.
  std::uint32_t pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const std::uint32_t cell = heap_.back().cell;
    heap_.pop_back();
    return cell;
  }
  bool upcoming(std::size_t, std::uint32_t&) const { return false; }
  /// push(key, cell) if keep (BucketQueue::pushIf's contract, with a branch).
  void pushIf(bool keep, double key, std::uint32_t cell) {
    if (keep) push(key, cell);
  }
  std::size_t bytesReserved() const { return heap_.capacity() * sizeof(Keyed); }

 private:
  struct Keyed {
    double key;
    std::uint32_t cell;
  };
  static bool later(const Keyed& a, const Keyed& b) { return a.key > b.key; }
  std::vector<Keyed> heap_;
};

}  // namespace mmp
