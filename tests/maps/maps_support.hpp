// Helpers for the maps tests: temporary files and small generated images.
#pragma once

#include <mmp/core/random.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <random>  // std::random_device: unique folder names only
#include <string>

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
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// A random 8-bit BGR image.
inline cv::Mat randomImage(std::uint64_t seed, int rows, int cols) {
  Random rng(seed);
  cv::Mat image(rows, cols, CV_8UC3);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      cv::Vec3b& px = image.at<cv::Vec3b>(r, c);
      for (int ch = 0; ch < 3; ++ch) px[ch] = static_cast<std::uint8_t>(rng.below(256));  // in channel order
    }
  }
  return image;
}

}  // namespace mmp::test
