#include "line_chart.hpp"

#include <mmp/core/error.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mmp::tools {
namespace {

/// A round tick spacing (1, 2 or 5 times a power of ten) giving about `count` ticks over `range`.
double tickStep(double range, int count) {
  const double raw = range / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10.0 * power;
}

std::string tickText(double v, double step) {
  char buffer[32];
  const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

cv::Scalar colour(const std::array<int, 3>& rgb) { return cv::Scalar(rgb[2], rgb[1], rgb[0]); }

}  // namespace

void writeLineChart(const std::string& path, const ChartLabels& labels, const std::vector<ChartSeries>& series,
                    int width, int height) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const ChartSeries& s : series) {
    if (s.x.size() != s.y.size()) throw InvalidArgument("line chart: series '" + s.name + "' has x and y of different lengths");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) throw InvalidArgument("line chart: series '" + s.name + "' is not finite");
      x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
    }
  }
  if (!(x0 <= x1)) x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 1.0;  // nothing to draw: empty axes
  if (y0 >= 0.0) y0 = 0.0;
  if (x1 - x0 < 1e-12) x1 = x0 + 1.0;
  if (y1 - y0 < 1e-12) y1 = y0 + 1.0;
  const double y_step = tickStep(y1 - y0, 6), x_step = tickStep(x1 - x0, 8);
  y1 = y0 + std::ceil((y1 - y0) / y_step - 1e-9) * y_step;

  const int left = 80, right = 30, top = 50, bottom = 60;
  const int plot_w = width - left - right, plot_h = height - top - bottom;
  const auto px = [&](double x) { return left + static_cast<int>(std::lround((x - x0) / (x1 - x0) * plot_w)); };
  const auto py = [&](double y) { return top + plot_h - static_cast<int>(std::lround((y - y0) / (y1 - y0) * plot_h)); };

  cv::Mat image(height, width, CV_8UC3, cv::Scalar(255, 255, 255));
  const int font = cv::FONT_HERSHEY_SIMPLEX;
  const cv::Scalar black(0, 0, 0), grid(225, 225, 225);
  // 1) grid and tick labels
  for (double y = y0; y <= y1 + 1e-9 * y_step; y += y_step) {
    cv::line(image, {left, py(y)}, {left + plot_w, py(y)}, grid, 1);
    const std::string t = tickText(y, y_step);
    int base = 0;
    const cv::Size size = cv::getTextSize(t, font, 0.45, 1, &base);
    cv::putText(image, t, {left - 8 - size.width, py(y) + size.height / 2}, font, 0.45, black, 1, cv::LINE_AA);
  }
  for (double x = std::ceil(x0 / x_step) * x_step; x <= x1 + 1e-9 * x_step; x += x_step) {
    cv::line(image, {px(x), top}, {px(x), top + plot_h}, grid, 1);
    const std::string t = tickText(x, x_step);
    int base = 0;
    const cv::Size size = cv::getTextSize(t, font, 0.45, 1, &base);
    cv::putText(image, t, {px(x) - size.width / 2, top + plot_h + 8 + size.height}, font, 0.45, black, 1, cv::LINE_AA);
  }
  // 2) axes and titles
  cv::rectangle(image, {left, top}, {left + plot_w, top + plot_h}, black, 1);
  int base = 0;
  cv::Size size = cv::getTextSize(labels.title, font, 0.6, 1, &base);
  cv::putText(image, labels.title, {(width - size.width) / 2, top - 18}, font, 0.6, black, 1, cv::LINE_AA);
  size = cv::getTextSize(labels.x_axis, font, 0.5, 1, &base);
  cv::putText(image, labels.x_axis, {left + (plot_w - size.width) / 2, height - 14}, font, 0.5, black, 1, cv::LINE_AA);
  {
    // the y-axis title, rotated: drawn on its own strip, then turned a quarter
    size = cv::getTextSize(labels.y_axis, font, 0.5, 1, &base);
    cv::Mat strip(size.height + base + 6, size.width + 6, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::putText(strip, labels.y_axis, {3, size.height + 3}, font, 0.5, black, 1, cv::LINE_AA);
    cv::Mat turned;
    cv::rotate(strip, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
    const int x = 6, y = top + (plot_h - turned.rows) / 2;
    if (y >= 0 && y + turned.rows <= height && x + turned.cols <= width) turned.copyTo(image(cv::Rect(x, y, turned.cols, turned.rows)));
  }
  // 3) the series, then 4) the legend in the upper right corner
  for (const ChartSeries& s : series) {
    std::vector<cv::Point> points;
    for (std::size_t i = 0; i < s.x.size(); ++i) points.emplace_back(px(s.x[i]), py(s.y[i]));
    if (points.size() == 1) cv::circle(image, points[0], 3, colour(s.rgb), cv::FILLED, cv::LINE_AA);
    if (points.size() > 1) cv::polylines(image, points, false, colour(s.rgb), 2, cv::LINE_AA);
  }
  int legend_w = 0;
  for (const ChartSeries& s : series) legend_w = std::max(legend_w, cv::getTextSize(s.name, font, 0.45, 1, &base).width);
  if (!series.empty()) {
    const int row = 20, box_w = legend_w + 50, box_h = row * static_cast<int>(series.size()) + 10;
    const cv::Point corner(left + plot_w - box_w - 10, top + 10);
    cv::rectangle(image, corner, corner + cv::Point(box_w, box_h), cv::Scalar(255, 255, 255), cv::FILLED);
    cv::rectangle(image, corner, corner + cv::Point(box_w, box_h), black, 1);
    for (std::size_t i = 0; i < series.size(); ++i) {
      const int y = corner.y + 15 + row * static_cast<int>(i);
      cv::line(image, {corner.x + 8, y}, {corner.x + 36, y}, colour(series[i].rgb), 2, cv::LINE_AA);
      cv::putText(image, series[i].name, {corner.x + 44, y + 5}, font, 0.45, black, 1, cv::LINE_AA);
    }
  }
  bool written = false;
  try {
    written = cv::imwrite(path, image);
  } catch (const cv::Exception& e) {
    throw Error("cannot write the chart '" + path + "': " + e.what());
  }
  if (!written) throw Error("cannot write the chart '" + path + "'");
}

}  // namespace mmp::tools
