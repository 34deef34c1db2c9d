#include <mmp/core/file_io.hpp>

#include <mmp/core/error.hpp>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace mmp {
namespace {

std::string reason() { return std::strerror(errno); }

// Writes, flushes and (for a regular file) syncs; returns "" or the reason of the first failure.
// Closes the file in every case.
std::string writeAndClose(std::FILE* file, const std::string& bytes, bool sync) {
  std::string error;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size() || std::fflush(file) != 0 ||
      (sync && ::fsync(::fileno(file)) != 0)) {
    error = reason();
  }
  if (std::fclose(file) != 0 && error.empty()) error = reason();
  return error;
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& bytes) {
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    if (S_ISDIR(target.st_mode)) throw Error("cannot write '" + path + "': it is a folder");
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) throw Error("cannot write '" + path + "': " + reason());
    const std::string error = writeAndClose(file, bytes, false);
    if (!error.empty()) throw Error("cannot write '" + path + "': " + error);
    return;
  }
  // A unique temporary beside the target, so that the rename stays on one file system.
  static std::atomic<unsigned> counter{0};
  const std::string temporary =
      path + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter.fetch_add(1));
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) throw Error("cannot write '" + path + "': creating '" + temporary + "' failed (" + reason() + ")");
  const std::string error = writeAndClose(file, bytes, true);
  if (!error.empty()) {
    std::remove(temporary.c_str());
    throw Error("cannot write '" + path + "': " + error + "; the old file is untouched");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string rename_error = reason();
    std::remove(temporary.c_str());
    throw Error("cannot write '" + path + "': renaming the temporary file failed (" + rename_error + ")");
  }
}

}  // namespace mmp
