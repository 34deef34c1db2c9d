// RadixHeap: a monotone priority queue of (key, cell) with nonnegative double keys.
//
// Valid when no key pushed is smaller than the last key popped, as in Dijkstra and in A* with a
// consistent heuristic.  Nonnegative IEEE doubles order like their bit patterns, so keys are
// bucketed by the highest bit in which they differ from the last popped key; push is O(1) and pop
// amortised O(log of the key range), with no decrease-key (stale entries are skipped by the caller).
// Ties pop in a deterministic order for a deterministic sequence of pushes.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mmp {

class RadixHeap {
 public:
  struct Entry {
    std::uint64_t key;  // bit pattern of a nonnegative double
    std::uint32_t cell;
  };

  static std::uint64_t bitsOf(double key) {
    std::uint64_t bits;
    std::memcpy(&bits, &key, sizeof bits);
    return bits;
  }
  static double keyOf(std::uint64_t bits) {
    double key;
    std::memcpy(&key, &bits, sizeof key);
    return key;
  }

  void clear() {
    for (auto& b : buckets_) b.clear();
    size_ = 0;
    last_ = 0;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// The last key popped: the smallest key a push may carry.
  double lastKey() const { return keyOf(last_); }

  /// requires: key >= lastKey() (callers clamp keys that rounding pushed an ulp below).
  void push(double key, std::uint32_t cell) {
    const std::uint64_t bits = bitsOf(key);
    buckets_[bucketOf(bits)].push_back({bits, cell});
    ++size_;
  }

  /// requires: !empty().  ensures: removes and returns an entry of smallest key.
  Entry pop() {
    if (buckets_[0].empty()) refill();
    Entry e = buckets_[0].back();
    buckets_[0].pop_back();
    --size_;
    return e;
  }

  /// Bytes held by the buckets (their capacity), for memory reports.
  std::size_t bytesReserved() const {
    std::size_t bytes = 0;
    for (const auto& b : buckets_) bytes += b.capacity() * sizeof(Entry);
    return bytes;
  }

 private:
  std::size_t bucketOf(std::uint64_t bits) const {
    const std::uint64_t diff = bits ^ last_;
    return diff == 0 ? 0 : 64 - static_cast<std::size_t>(__builtin_clzll(diff));
  }

  // Moves the smallest non-empty bucket down: its minimum becomes the new last key, and every entry
  // of it lands in a lower bucket (those equal to the minimum in bucket 0).
  void refill() {
    std::size_t i = 1;
    while (buckets_[i].empty()) ++i;
    std::uint64_t smallest = buckets_[i].front().key;
    for (const Entry& e : buckets_[i]) smallest = e.key < smallest ? e.key : smallest;
    last_ = smallest;
    for (const Entry& e : buckets_[i]) buckets_[bucketOf(e.key)].push_back(e);
    buckets_[i].clear();
  }

  std::array<std::vector<Entry>, 65> buckets_;
  std::size_t size_ = 0;
  std::uint64_t last_ = 0;
};

}  // namespace mmp
