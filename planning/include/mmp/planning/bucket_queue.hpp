// BucketQueue: the open list of GridPlanner, a monotone priority queue with O(1) pushes.
//
// Keys (f = g + h) are never pushed below the key last popped, and never more than a known
// `span` above it (the largest step cost plus the largest heuristic change of one step).  Keys
// fall into buckets of a fixed width on a ring that covers the span, so a push is an append.
//   - Ordered (A*): the current bucket is a binary heap of (key, cell), so pops come out in exact
//     key order whatever the width.
//   - Settled (width <= the smallest reduced step cost, step - h(u) + h(v)): every key in the
//     current bucket is already final (Dial's argument: a relaxation adds at least one width), so a
//     bucket is popped in any order; entries are bare 4-byte cells and there is no heap at all.
// Ties pop in a deterministic order for a deterministic sequence of pushes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace mmp {

template <bool kOrdered>
class BucketQueue {
 public:
  struct Keyed {
    double key;
    std::uint32_t cell;
  };
  using Entry = std::conditional_t<kOrdered, Keyed, std::uint32_t>;
  static constexpr bool kKeyed = kOrdered;  ///< entries carry their keys: no look-ahead, no key-free tricks

  /// The ring size a span needs at a bucket width; more than kMaxBuckets means "use wider buckets".
  static double bucketsFor(double span, double width) { return span / width + 2.0; }
  static constexpr std::size_t kMaxBuckets = std::size_t{1} << 16;

  /// Starts empty with keys >= base and pushes at most `span` above the last pop.
  /// requires (settled mode): bucketsFor(span, width) <= kMaxBuckets.
  /// An infinite span (ordered mode only) leaves every key in the current bucket: one exact heap.
  void reset(double base, double width, double span) {
    if (kOrdered) {
      width = std::isfinite(span) ? std::max(width, span / static_cast<double>(kMaxBuckets - 2))
                                  : std::numeric_limits<double>::infinity();
    }
    std::size_t buckets = 4;
    while (std::isfinite(span) && static_cast<double>(buckets) < bucketsFor(span, width)) buckets *= 2;
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
      if constexpr (kOrdered) {
        current_.push_back({key, cell});
        std::push_heap(current_.begin(), current_.end(), later);
      } else {
        current_.push_back(cell);
      }
    } else if constexpr (kOrdered) {
      ring_[index & mask_].push_back({key, cell});
    } else {
      ring_[index & mask_].push_back(cell);
    }
  }

  /// requires: !empty().  ensures: returns the cell of a smallest key (ordered) or of a key in the
  /// lowest non-empty bucket (settled).
  std::uint32_t pop() {
    while (current_.empty()) {
      ++bucket_;
      current_.swap(ring_[bucket_ & mask_]);
      if constexpr (kOrdered) std::make_heap(current_.begin(), current_.end(), later);
    }
    --size_;
    if constexpr (kOrdered) {
      std::pop_heap(current_.begin(), current_.end(), later);
      const std::uint32_t cell = current_.back().cell;
      current_.pop_back();
      return cell;
    } else {
      const std::uint32_t cell = current_.back();
      current_.pop_back();
      return cell;
    }
  }

  /// A cell that pop() will return soon (settled mode: ahead pops from now, unless pushes come
  /// first), or none: lets the caller prefetch its data.  Returns false when there is none.
  bool upcoming(std::size_t ahead, std::uint32_t& cell) const {
    static_assert(!kOrdered, "an ordered bucket is a heap: no cheap look-ahead");
    if (current_.size() < ahead) return false;
    cell = current_[current_.size() - ahead];
    return true;
  }

  std::size_t bytesReserved() const {
    std::size_t bytes = current_.capacity() * sizeof(Entry) + ring_.capacity() * sizeof(ring_[0]);
    for (const auto& b : ring_) bytes += b.capacity() * sizeof(Entry);
    return bytes;
  }

 private:
  static bool later(const Keyed& a, const Keyed& b) { return a.key > b.key; }

  std::vector<std::vector<Entry>> ring_;
  std::vector<Entry> current_;
  std::size_t mask_ = 3;
  double base_ = 0.0, inverse_width_ = 1.0;
  std::uint64_t bucket_ = 0;
  std::size_t size_ = 0;
};

}  // namespace mmp
