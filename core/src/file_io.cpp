#include <mmp/core/file_io.hpp>

#include <mmp/core/error.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace mmp {
namespace {

std::string reason() { return std::strerror(errno); }

// Removes what a killed writer of `path` left beside it: "<path>.tmp<pid>_<n>" of a process that no
// longer runs (a live one, this process included, may still be writing it).  Once per folder and
// process, so that writing many files into one folder does not scan it again each time.
void removeStaleTemporaries(const std::string& path) {
  static std::mutex mutex;
  static std::set<std::string> scanned;
  const std::filesystem::path target(path);
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!scanned.insert(folder.string()).second) return;
  }
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    const std::size_t tmp = name.rfind(".tmp");
    if (tmp == std::string::npos) continue;
    const std::string rest = name.substr(tmp + 4);
    const std::size_t underscore = rest.find('_');
    if (underscore == std::string::npos || underscore == 0 || underscore + 1 == rest.size() ||
        rest.find_first_not_of("0123456789_") != std::string::npos || rest.find('_', underscore + 1) != std::string::npos) {
      continue;
    }
    const long pid = std::strtol(rest.substr(0, underscore).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove(it->path(), ignored);
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  struct stat target {};
  if (::stat(path_.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    if (S_ISDIR(target.st_mode)) throw Error("cannot write '" + path_ + "': it is a folder");
    file_ = std::fopen(path_.c_str(), "wb");
    if (file_ == nullptr) throw Error("cannot write '" + path_ + "': " + reason());
    return;
  }
  // A unique temporary beside the target, so that the rename stays on one file system.
  removeStaleTemporaries(path_);
  static std::atomic<unsigned> counter{0};
  temporary_ = path_ + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter.fetch_add(1));
  file_ = std::fopen(temporary_.c_str(), "wb");
  if (file_ == nullptr) throw Error("cannot write '" + path_ + "': creating '" + temporary_ + "' failed (" + reason() + ")");
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!temporary_.empty()) std::remove(temporary_.c_str());  // not committed: the target stays as it was
}

void AtomicFile::fail(const std::string& when) {
  const std::string error = "cannot write '" + path_ + "': " + reason() + (when.empty() ? "" : " (" + when + ")") +
                            (temporary_.empty() ? "" : "; the old file is untouched");
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  if (!temporary_.empty()) std::remove(temporary_.c_str());
  temporary_.clear();
  throw Error(error);
}

void AtomicFile::write(const void* data, std::size_t size) {
  if (file_ == nullptr) throw Error("cannot write '" + path_ + "': it is closed");
  if (std::fwrite(data, 1, size, file_) != size) fail("");
}

void AtomicFile::commit(const std::function<void(const std::string& written)>& before_rename) {
  if (file_ == nullptr) throw Error("cannot write '" + path_ + "': it is closed");
  if (std::fflush(file_) != 0 || (!temporary_.empty() && ::fsync(::fileno(file_)) != 0)) fail("");
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) fail("closing it");
  if (before_rename) {
    try {
      before_rename(temporary_.empty() ? path_ : temporary_);
    } catch (...) {
      if (!temporary_.empty()) std::remove(temporary_.c_str());
      temporary_.clear();
      throw;
    }
  }
  if (temporary_.empty()) return;
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) fail("renaming the temporary file");
  temporary_.clear();
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
  AtomicFile file(path);
  file.write(bytes.data(), bytes.size());
  file.commit();
}

}  // namespace mmp
