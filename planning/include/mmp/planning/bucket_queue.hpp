// BucketQueue: the open list of GridPlanner over a narrow cost range, a monotone priority queue
// with O(1) pushes and pops and no comparisons at all.
//
// Keys (f = g + h) are never pushed below the key last popped, and never more than a known
// `span` above it (the largest step cost plus the largest heuristic change of one step).  Keys
// fall into buckets of a fixed width on a ring that covers the span, so a push is an append.  The
// width is at most the smallest reduced step cost (step - h(u) + h(v)), so every key in the current
// bucket is already final (Dial's argument: a relaxation adds at least one width) and a bucket is
// popped in any order; entries are bare 4-byte cells.  When the cost range needs more than
// kMaxBuckets buckets, GridPlanner takes a RadixHeap (radix_heap.hpp) instead.
// Ties pop in a deterministic order for a deterministic sequence of pushes.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace mmp {

class BucketQueue {
 public:
  static constexpr bool kKeyed = false;  ///< entries are bare cells: pops can be looked ahead at

  /// The ring size a span needs at a bucket width; more than kMaxBuckets means "use a RadixHeap".
  static double bucketsFor(double span, double width) { return span / width + 2.0; }
  static constexpr std::size_t kMaxBuckets = std::size_t{1} << 16;

  /// Starts empty with keys >= base and pushes at most `span` above the last pop.
  /// requires: bucketsFor(span, width) <= kMaxBuckets.
  void reset(double base, double width, double span) {
    std::size_t buckets = 4;
    while (static_cast<double>(buckets) < bucketsFor(span, width)) buckets *= 2;
    if (ring_.size() < buckets) ring_.resize(buckets);
    for (auto& b : ring_) b.clear();
    current_.clear();
    mask_ = buckets - 1;
    base_ = base;
    inverse_width_ = 1.0 / width;
    bucket_ = 0;
    size_ = 0;
  }

  bool empty() const { return size_ == 0; }

  void push(double key, std::uint32_t cell) {
    const auto index = static_cast<std::uint64_t>((key - base_) * inverse_width_);
    ++size_;
    if (index <= bucket_) {  // the current bucket (or an ulp below it)
      current_.push_back(cell);
    } else {
      ring_[index & mask_].push_back(cell);
    }
  }

  /// requires: !empty().  ensures: returns the cell of a key in the lowest non-empty bucket.
  std::uint32_t pop() {
    while (current_.empty()) {
      ++bucket_;
      current_.swap(ring_[bucket_ & mask_]);
    }
    --size_;
    const std::uint32_t cell = current_.back();
    current_.pop_back();
    return cell;
  }

  /// A cell that pop() will return soon (ahead pops from now, unless pushes come first), or none:
  /// lets the caller prefetch its data.  Returns false when there is none.
  bool upcoming(std::size_t ahead, std::uint32_t& cell) const {
    if (current_.size() < ahead) return false;
    cell = current_[current_.size() - ahead];
    return true;
  }

  std::size_t bytesReserved() const {
    std::size_t bytes = current_.capacity() * sizeof(std::uint32_t) + ring_.capacity() * sizeof(ring_[0]);
    for (const auto& b : ring_) bytes += b.capacity() * sizeof(std::uint32_t);
    return bytes;
  }

 private:
  std::vector<std::vector<std::uint32_t>> ring_;
  std::vector<std::uint32_t> current_;
  std::size_t mask_ = 3;
  double base_ = 0.0, inverse_width_ = 1.0;
  std::uint64_t bucket_ = 0;
  std::size_t size_ = 0;
};

}  // namespace mmp
