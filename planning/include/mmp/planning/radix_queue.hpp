// RadixQueue: the open list of GridPlanner when the cell costs span too wide a range for a ring of
// buckets (BucketQueue), a monotone priority queue whose cost does not grow with the range.
//
// Like BucketQueue, a key belongs to the bucket numbered floor((key - base) / width), and the width
// is at most the smallest reduced step cost, so every key of the lowest non-empty bucket is final
// and that bucket pops in any order (Dial's argument).  The bucket numbers are kept in a radix heap
// (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path problem", JACM 1990)
// instead of a ring: level 0 holds the entries of the current bucket number (the last one popped),
// as bare cells; level b > 0 the entries whose number first differs from it in bit b - 1.  A push is
// an append; when level 0 is empty, the lowest non-empty level's smallest number becomes current and
// its entries move to lower levels.  An entry only moves down, so it moves at most 64 times and in
// practice a few: a search pays O(1)-ish per entry whatever the ratio of its largest to its smallest
// cell cost, where a binary heap pays log n mispredicted comparisons (158 ns an expansion on a
// 4e8 : 1 oracle call).  Level 0 pops last-in first-out, so the cell due a few pops ahead is known
// (upcoming()) and its search state can be prefetched, as with BucketQueue.
//
// requires of the caller: (largest key - base) / width < 2^63 (GridPlanner checks the bound and
// takes a HeapQueue beyond it).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace mmp {

class RadixQueue {
 public:
  static constexpr bool kCanLookAhead = true;  ///< upcoming() is available: the caller may prefetch

  /// Starts empty; keys pushed must be >= base, up to the rounding of a consistent heuristic (a key
  /// an ulp below the current bucket is queued in it).
  void reset(double base, double width) {
    for (std::size_t b = 1; b < levels_.size(); ++b) levels_[b].clear();
    current_.clear();
    occupied_ = 0;
    base_ = base;
    inverse_width_ = 1.0 / width;
    last_ = 0;
    size_ = 0;
  }

  bool empty() const { return size_ == 0; }

  void push(double key, std::uint32_t cell) {
    const double scaled = (key - base_) * inverse_width_;
    std::uint64_t number = scaled > 0.0 ? static_cast<std::uint64_t>(scaled) : 0;
    ++size_;
    if (number <= last_) {
      current_.push_back(cell);
      return;
    }
    const int b = levelOf(number);
    levels_[static_cast<std::size_t>(b)].push_back({number, cell});
    occupied_ |= std::uint64_t{1} << b;
  }

  /// push(key, cell) if keep (BucketQueue::pushIf's contract, with a branch).
  void pushIf(bool keep, double key, std::uint32_t cell) {
    if (keep) push(key, cell);
  }

  /// requires: !empty().  ensures: returns the cell of a key in the lowest non-empty bucket.
  std::uint32_t pop() {
    if (current_.empty()) refill();
    --size_;
    const std::uint32_t cell = current_.back();
    current_.pop_back();
    return cell;
  }

  /// A cell that pop() will return soon (ahead pops from now, unless pushes come first), or none.
  bool upcoming(std::size_t ahead, std::uint32_t& cell) const {
    if (current_.size() < ahead) return false;
    cell = current_[current_.size() - ahead];
    return true;
  }

  std::size_t bytesReserved() const {
    std::size_t bytes = current_.capacity() * sizeof(std::uint32_t);
    for (const auto& level : levels_) bytes += level.capacity() * sizeof(Entry);
    return bytes;
  }

 private:
  struct Entry {
    std::uint64_t number;
    std::uint32_t cell;
  };

  // 1 + the highest bit in which number differs from the current one (number > last_); at most 63
  // since both are below 2^63.
  int levelOf(std::uint64_t number) const { return 64 - __builtin_clzll(number ^ last_); }

  // Level 0 is empty: the lowest non-empty level's smallest bucket number becomes current, and its
  // entries move to lower levels (they share the bits above its level with the new number).
  void refill() {
    const int from = __builtin_ctzll(occupied_);
    std::vector<Entry>& source = levels_[static_cast<std::size_t>(from)];
    std::uint64_t smallest = source.front().number;
    for (const Entry& e : source) smallest = e.number < smallest ? e.number : smallest;
    last_ = smallest;
    for (const Entry& e : source) {
      if (e.number == last_) {
        current_.push_back(e.cell);
      } else {
        const int b = levelOf(e.number);
        levels_[static_cast<std::size_t>(b)].push_back(e);
        occupied_ |= std::uint64_t{1} << b;
      }
    }
    source.clear();
    occupied_ &= ~(std::uint64_t{1} << from);
  }

  std::vector<std::uint32_t> current_;     // level 0: cells of the current bucket number
  std::array<std::vector<Entry>, 64> levels_;  // levels 1..63 (index 0 unused: level 0 is current_)
  std::uint64_t occupied_ = 0;             // bit b: level b is not empty
  double base_ = 0.0, inverse_width_ = 1.0;
  std::uint64_t last_ = 0;                 // the current bucket number
  std::size_t size_ = 0;
};

}  // namespace mmp
