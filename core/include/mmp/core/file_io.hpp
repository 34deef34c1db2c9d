// Writing output files so that nothing is lost: a reader sees the old file or the new one, never a
// half-written one, and every failure (a full disk included) is an error naming the file.
//
//   writeFileAtomically("out/metrics.json", text);   // temporary beside it, fsync, rename
//
// Targets that are not regular files (a device such as /dev/full or /dev/stdout, a pipe) cannot be
// replaced by a rename; they are written in place, with the same checks of every write, flush and close.
// A temporary a killed writer left ("<target>.tmp<pid>_<n>", its process gone) is removed by the next
// write into that folder.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

namespace mmp {

/// An output file written piece by piece (for outputs larger than memory) with the guarantees of
/// writeFileAtomically: the pieces go to a temporary beside the target, which commit() syncs and
/// renames over it; destroyed without commit() (an error on the way), the target is untouched.
/// Every failure throws mmp::Error naming the path.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t size);
  /// Closes the file and replaces the target.  before_rename, if given, is called with the closed
  /// file's path (the temporary, or the target itself when that is a device or a pipe) and may
  /// still change it; if it throws, the target stays as it was.
  void commit(const std::function<void(const std::string& written)>& before_rename = {});

 private:
  [[noreturn]] void fail(const std::string& when);  // throws with errno's reason

  std::string path_, temporary_;  // temporary_ empty: written in place (a device or a pipe)
  std::FILE* file_ = nullptr;
};

/// Writes `bytes` to `path` (see the file comment).  Throws mmp::Error naming the path, what failed and
/// the system's reason; the old file is untouched then.
void writeFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace mmp
