// What the two image readers (imagery.cpp: OpenCV and libjpeg; georeference.cpp: GDAL) share, so that
// every image reaches the features in one format and under one size limit.  Private to maps/.
#pragma once

#include <opencv2/core.hpp>

#include <string>

namespace mmp::detail {

// The most pixels an image read whole may have: checked against the size its header declares before
// anything is allocated, so that a small damaged file cannot ask for gigabytes (384 MiB of BGR; the
// Dubai tiles have 3.2 million pixels).
constexpr double kMaxImagePixels = 1 << 27;

// A decoded image (1, 3 or 4 channels in OpenCV's order; 8 or 16 bits, or float in [0, 1]) as 8-bit
// BGR: grey expanded, alpha dropped, 16 bits scaled.  Throws mmp::DataError naming `path` otherwise.
cv::Mat bgr8(cv::Mat raw, const std::string& path);

}  // namespace mmp::detail
