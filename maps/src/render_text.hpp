// What the pictures of render.cpp and render_chart.cpp share: colours, and text drawn at a scale
// (render.hpp's drawingScale).  Private to maps/.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mmp::detail {

inline const cv::Scalar kWhite(255, 255, 255), kBlack(0, 0, 0), kGrey(120, 120, 120), kLightGrey(225, 225, 225);

// Text of one size on pictures drawn at `scale`: `size` is the font scale at scale 1 (0.45 is about
// 10 pixels high), strokes thicken with the scale so large text is not hairline.
struct Pen {
  double scale = 1.0;
  double size = 0.45;

  double font() const { return size * scale; }
  int stroke() const { return std::max(1, static_cast<int>(std::lround(scale * size / 0.45))); }
  int px(double pixels_at_scale_1) const { return static_cast<int>(std::lround(pixels_at_scale_1 * scale)); }
  Pen sized(double other) const { return {scale, other}; }

  cv::Size extent(const std::string& s) const {
    int baseline = 0;
    return cv::getTextSize(s, cv::FONT_HERSHEY_SIMPLEX, font(), stroke(), &baseline);
  }
  int width(const std::string& s) const { return extent(s).width; }
  /// The height of a capital: the distance from a baseline to the top of the text.
  int height() const { return extent("H").height; }
  /// Draws s with its baseline's left end at `at`.
  void write(cv::Mat& picture, const std::string& s, cv::Point at, const cv::Scalar& colour = kBlack) const {
    cv::putText(picture, s, at, cv::FONT_HERSHEY_SIMPLEX, font(), colour, stroke(), cv::LINE_AA);
  }
};

}  // namespace mmp::detail
