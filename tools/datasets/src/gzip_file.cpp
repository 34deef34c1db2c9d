#include <mmp/datasets/gzip_file.hpp>

#include <mmp/core/error.hpp>

#include <zlib.h>

namespace mmp::datasets {

std::string readMaybeGzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw DataError("cannot open '" + path + "'");
  gzbuffer(file, 1 << 17);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const std::string error = gzerror(file, &code);
      gzclose(file);
      throw DataError("cannot decompress '" + path + "': " + error);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  // gzread ends a stream that stops before its end (a cut download, a full disk) like a complete one:
  // it returns what it decompressed and leaves Z_BUF_ERROR ("unexpected end of file") in gzerror.
  int code = Z_OK;
  const std::string error = gzerror(file, &code);
  gzclose(file);
  if (code == Z_BUF_ERROR) {
    throw DataError("'" + path + "' is truncated: the gzip stream ends after " + std::to_string(text.size()) +
                    " decompressed bytes, before its end (" + error + "); copy or download the file again");
  }
  if (code != Z_OK) throw DataError("cannot decompress '" + path + "': " + error);
  return text;
}

void failAtLine(const std::string& source, std::size_t line, const std::string& what) {
  throw DataError(source + ":" + std::to_string(line) + ": " + what);
}

}  // namespace mmp::datasets
