// A run's output folder, written all at once: the outputs of a run are all old or all new.
//
//   OutputFolder out("out/follow_road");      // makes out/follow_road.partial-<pid> now: a bad path fails first
//   saveModel(out.file("model.mmp"), model);  // every output goes into the staging folder
//   out.commit();                             // swaps it in for the old folder in one rename
//
// A run that throws before commit() leaves the old folder as it was and removes the staging folder.
// Replacing deletes the old folder's contents, so an existing folder is replaced only if it is empty
// or mmp wrote it (it holds the marker file kOutputMarker); any other folder is refused by name, so a
// mistyped --output-dir can never wipe a folder of the user's.
//
// A run killed outright (SIGKILL, a power cut) cannot remove its staging folder: the next run into
// the same folder removes every `<path>.partial-<pid>` and `<path>.old-<pid>` beside it whose
// process is no longer alive and that mmp wrote (it holds kOutputMarker, or nothing at all).
#pragma once

#include <string>
#include <vector>

namespace mmp {

constexpr const char* kOutputMarker = ".mmp-output";

class OutputFolder {
 public:
  /// Throws mmp::Error naming the path if it is a file, a folder mmp did not write, or cannot be made.
  explicit OutputFolder(std::string path);
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  const std::string& path() const { return path_; }  ///< where the outputs end up
  /// The staging path of an output file; say path() + "/" + name to the user.
  std::string file(const std::string& name) const { return staging_ + "/" + name; }
  /// Replaces the folder at path() by the staged outputs.  Throws mmp::Error if that fails; the old
  /// folder is then untouched.
  void commit();
  /// The staging folders of dead runs that the constructor removed (for the caller to say so).
  const std::vector<std::string>& removedStale() const { return removed_; }

 private:
  std::string path_, staging_;
  std::vector<std::string> removed_;
  bool committed_ = false;
};

}  // namespace mmp
