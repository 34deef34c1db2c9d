#pragma once
// The version and source commit a trained model records (its provenance, `mmp info`).
#include <string>

namespace mmp::tools {

/// mmp's version (the project's, from CMake).
std::string version();
/// "VERSION (commit HASH)": the commit as of the last CMake configure ("unknown" outside a git
/// checkout), "-dirty" with uncommitted changes.  Compiled in a file of its own, so that a new commit
/// recompiles only that file.
std::string provenance();

}  // namespace mmp::tools
