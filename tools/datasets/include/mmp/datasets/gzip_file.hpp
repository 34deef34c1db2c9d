// Reads a whole file, decompressing it if it is gzip (zlib's gzread passes plain files through), and
// the error of the data sets' line readers.
#pragma once

#include <cstddef>
#include <string>

namespace mmp::datasets {

/// Throws mmp::DataError naming the path if it cannot be opened or decompressed.
std::string readMaybeGzip(const std::string& path);

/// Throws mmp::DataError "source:line: what".
[[noreturn]] void failAtLine(const std::string& source, std::size_t line, const std::string& what);

}  // namespace mmp::datasets
