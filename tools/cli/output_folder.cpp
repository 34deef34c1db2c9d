#include "output_folder.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace mmp {
namespace fs = std::filesystem;

namespace {

// Throws unless `path` is absent, an empty folder or a folder mmp wrote.
void requireReplaceable(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status)) throw Error("output folder '" + path + "' exists and is not a folder; give a folder path");
  if (fs::is_empty(path, error) || fs::exists(fs::path(path) / kOutputMarker, error)) return;
  throw Error("output folder '" + path + "' holds files mmp did not write (it has no " + kOutputMarker +
              "); a run replaces its output folder whole, so give a new or empty folder (or delete it, if an older mmp wrote it)");
}

// The folders `<path>.partial-<pid>` and `<path>.old-<pid>` of runs no longer alive that mmp wrote
// (holding the marker, or empty: killed between making the folder and writing the marker).  A live
// process with a reused pid keeps its folder: removing too little is harmless, too much is not.
std::vector<std::string> removeStaleStaging(const std::string& path) {
  std::vector<std::string> removed;
  const fs::path target(path);
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string stem = target.filename().string();
  std::error_code error;
  fs::directory_iterator it(parent, error), end;
  for (; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::string digits;
    for (const char* suffix : {".partial-", ".old-"}) {
      const std::string prefix = stem + suffix;
      if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) digits = name.substr(prefix.size());
    }
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
    std::error_code ignored;
    if (!fs::is_directory(fs::symlink_status(it->path(), ignored))) continue;
    if (!fs::exists(it->path() / kOutputMarker, ignored) && !fs::is_empty(it->path(), ignored)) continue;
    if (fs::remove_all(it->path(), ignored) != static_cast<std::uintmax_t>(-1) && !ignored) {
      removed.push_back(it->path().string());
    }
  }
  return removed;
}

}  // namespace

OutputFolder::OutputFolder(std::string path) : path_(std::move(path)) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  if (path_.empty()) throw Error("the output folder is empty; give a folder path");
  requireReplaceable(path_);
  removed_ = removeStaleStaging(path_);
  staging_ = path_ + ".partial-" + std::to_string(::getpid());
  std::error_code error;
  fs::remove_all(staging_, error);  // left by a killed run of the same process id
  if (!fs::create_directories(staging_, error) || error) {
    throw Error("cannot create the output folder beside '" + path_ + "' ('" + staging_ +
                "'): " + (error ? error.message() : std::string("it exists")));
  }
  writeFileAtomically(file(kOutputMarker), "written by mmp; the whole folder is replaced by the next run\n");
}

OutputFolder::~OutputFolder() {
  if (committed_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

void OutputFolder::commit() {
  requireReplaceable(path_);  // the folder may have changed while the run went on
  std::error_code error;
  if (!fs::exists(path_, error)) {
    if (std::rename(staging_.c_str(), path_.c_str()) != 0) {
      throw Error("cannot move the outputs into '" + path_ + "': " + std::strerror(errno));
    }
  } else if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) != 0) {
    // No atomic exchange on this file system: move the old folder aside, then the new one in.
    const std::string old = path_ + ".old-" + std::to_string(::getpid());
    if (std::rename(path_.c_str(), old.c_str()) != 0) {
      throw Error("cannot replace the output folder '" + path_ + "': " + std::strerror(errno));
    }
    if (std::rename(staging_.c_str(), path_.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      std::rename(old.c_str(), path_.c_str());
      throw Error("cannot move the outputs into '" + path_ + "': " + reason);
    }
    fs::remove_all(old, error);
    committed_ = true;
    return;
  }
  committed_ = true;
  fs::remove_all(staging_, error);  // after the exchange it holds the old outputs
}

}  // namespace mmp
