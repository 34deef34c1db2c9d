// Writing output files so that nothing is lost: a reader sees the old file or the new one, never a
// half-written one, and every failure (a full disk included) is an error naming the file.
//
//   writeFileAtomically("out/metrics.json", text);   // temporary beside it, fsync, rename
//
// Targets that are not regular files (a device such as /dev/full or /dev/stdout, a pipe) cannot be
// replaced by a rename; they are written in place, with the same checks of every write, flush and close.
#pragma once

#include <string>

namespace mmp {

/// Writes `bytes` to `path` (see the file comment).  Throws mmp::Error naming the path, what failed and
/// the system's reason; the old file is untouched then.
void writeFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace mmp
