#include <mmp/core/process_group.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <string>

namespace mmp {

ExampleShare exampleShare(std::size_t examples, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) {
    throw InvalidArgument("example share: process " + std::to_string(rank) + " of " + std::to_string(size) +
                          "; need 0 <= rank < size");
  }
  const std::size_t n = static_cast<std::size_t>(size), r = static_cast<std::size_t>(rank);
  const std::size_t base = examples / n, extra = examples % n;
  ExampleShare share;
  share.begin = r * base + std::min(r, extra);
  share.end = share.begin + base + (r < extra ? 1 : 0);
  return share;
}

}  // namespace mmp
