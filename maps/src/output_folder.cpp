#include <mmp/maps/output_folder.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

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

}  // namespace

OutputFolder::OutputFolder(std::string path) : path_(std::move(path)) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  if (path_.empty()) throw Error("the output folder is empty; give a folder path");
  requireReplaceable(path_);
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
