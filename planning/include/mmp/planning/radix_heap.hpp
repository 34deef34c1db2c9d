// RadixHeap: the open list of GridPlanner when the cell costs span too wide a range for buckets, a
// monotone priority queue whose cost does not depend on the keys' range.
//
// Keys are non-negative doubles, and their bit patterns, read as unsigned 64-bit integers, are in the
// same order as the doubles (IEEE 754: exponent above mantissa, the sign bit 0).  A radix heap (Ahuja,
// Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path problem", JACM 1990) keeps
// bucket b for the keys whose highest bit differing from the last popped key is bit b - 1 (bucket 0:
// equal to it).  A push is an append; a pop takes bucket 0, or else empties the lowest non-empty
// bucket, whose smallest key becomes the last popped, into lower buckets.  An entry only ever moves
// to a lower bucket, so each costs at most 64 moves over its life and in practice a few: a search
// pays O(1)-ish per entry whatever the ratio of its largest to its smallest cell cost (a binary heap
// pays log n comparisons, most of them mispredicted branches).
//
// Pops come out in exact key order (every key, not only its bucket: the queue is as exact as a heap),
// ties in a deterministic order for a deterministic sequence of pushes.  Keys must be pushed at or
// above the last popped one; a key an ulp or so below it (a consistent heuristic's rounding) is
// queued as equal to it, which is what a heap would pop next as well.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mmp {

class RadixHeap {
 public:
  static constexpr bool kKeyed = true;  ///< entries carry their keys: no look-ahead for prefetching

  /// Starts empty; every key pushed must be >= base (>= 0), up to the rounding described above.
  void reset(double base) {
    for (int b = 0; occupied_ != 0; ++b, occupied_ >>= 1) {
      if (occupied_ & 1) buckets_[static_cast<std::size_t>(b)].clear();
    }
    last_ = bits(base);
    size_ = 0;
  }

  bool empty() const { return size_ == 0; }

  void push(double key, std::uint32_t cell) {
    std::uint64_t k = bits(key);
    if (k < last_) k = last_;
    const int b = bucketOf(k);
    buckets_[static_cast<std::size_t>(b)].push_back({k, cell});
    occupied_ |= std::uint64_t{1} << b;
    ++size_;
  }

  /// requires: !empty().  ensures: returns the cell of a smallest key.
  std::uint32_t pop() {
    if (!(occupied_ & 1)) refill();
    std::vector<Entry>& front = buckets_[0];
    const std::uint32_t cell = front.back().cell;
    front.pop_back();
    if (front.empty()) occupied_ &= ~std::uint64_t{1};
    --size_;
    return cell;
  }

  std::size_t bytesReserved() const {
    std::size_t bytes = 0;
    for (const auto& b : buckets_) bytes += b.capacity() * sizeof(Entry);
    return bytes;
  }

 private:
  struct Entry {
    std::uint64_t key;
    std::uint32_t cell;
  };

  static std::uint64_t bits(double key) {
    std::uint64_t k;
    std::memcpy(&k, &key, sizeof k);
    return k;
  }
  // 0 for the last popped key, else 1 + the highest bit in which the key differs from it; at most
  // 63 for non-negative doubles (the sign bit is 0 in both).
  int bucketOf(std::uint64_t k) const { return k == last_ ? 0 : 64 - __builtin_clzll(k ^ last_); }

  // Bucket 0 is empty: the lowest non-empty bucket's smallest key becomes the last popped, and its
  // entries move down (each to a bucket below this one: they share the bits above its index).
  void refill() {
    const int from = __builtin_ctzll(occupied_);
    std::vector<Entry>& source = buckets_[static_cast<std::size_t>(from)];
    std::uint64_t smallest = source.front().key;
    for (const Entry& e : source) smallest = e.key < smallest ? e.key : smallest;
    last_ = smallest;
    for (const Entry& e : source) {
      const int b = bucketOf(e.key);
      buckets_[static_cast<std::size_t>(b)].push_back(e);
      occupied_ |= std::uint64_t{1} << b;
    }
    source.clear();
    occupied_ &= ~(std::uint64_t{1} << from);
  }

  std::array<std::vector<Entry>, 64> buckets_;
  std::uint64_t occupied_ = 0;  // bit b: bucket b is not empty
  std::uint64_t last_ = 0;      // the bits of the last popped key
  std::size_t size_ = 0;
};

}  // namespace mmp
