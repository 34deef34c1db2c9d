// A temporary folder for a test's files, removed with the object; needs nothing of mmp.
#pragma once

#include <filesystem>
#include <random>  // std::random_device: unique folder names only
#include <string>
#include <system_error>

namespace mmp::test {

/// A file path in a fresh temporary folder, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::random_device device;
    path_ = std::filesystem::temp_directory_path() / ("mmp_test_" + std::to_string(device()) + std::to_string(device()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace mmp::test
