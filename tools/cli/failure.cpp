#include "failure.hpp"

#include <opencv2/core.hpp>

#include <new>

namespace mmp::tools {

std::string describeFailure(const std::exception& e) {
  static const std::string kMemory = "out of memory (the inputs or settings need more memory than this machine has)";
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return kMemory;
  if (const auto* cv_error = dynamic_cast<const cv::Exception*>(&e)) {
    if (cv_error->code == cv::Error::StsNoMem) return kMemory + "; OpenCV: " + cv_error->err;
    return "OpenCV: " + cv_error->err + " (in " + cv_error->func + ")";
  }
  return e.what();
}

}  // namespace mmp::tools
