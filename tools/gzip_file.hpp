// Reads a whole file, decompressing it if it is gzip (zlib's gzread passes plain files through).
#pragma once

#include <string>

namespace mmp::tools {

/// Throws mmp::DataError naming the path if it cannot be opened or decompressed.
std::string readMaybeGzip(const std::string& path);

}  // namespace mmp::tools
