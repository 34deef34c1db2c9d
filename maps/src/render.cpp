#include <mmp/maps/render.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mmp {
namespace {

const cv::Scalar kWhite(255, 255, 255), kBlack(0, 0, 0), kGrey(120, 120, 120), kLightGrey(225, 225, 225);
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

std::string shortNumber(double x) {
  char buffer[32];
  const double a = std::fabs(x);
  if (a != 0.0 && (a >= 1e5 || a < 1e-3)) std::snprintf(buffer, sizeof buffer, "%.1e", x);
  else if (a >= 100.0) std::snprintf(buffer, sizeof buffer, "%.0f", x);
  else if (a >= 10.0) std::snprintf(buffer, sizeof buffer, "%.1f", x);
  else std::snprintf(buffer, sizeof buffer, "%.2f", x);
  return buffer;
}

void text(cv::Mat& picture, const std::string& s, cv::Point at, double scale = 0.45, const cv::Scalar& colour = kBlack) {
  cv::putText(picture, s, at, kFont, scale, colour, 1, cv::LINE_AA);
}

int textWidth(const std::string& s, double scale = 0.45) {
  int baseline = 0;
  return cv::getTextSize(s, kFont, scale, 1, &baseline).width;
}

// What the costs of a map hold: the range of its finite costs and whether any cell is impassable (+inf).
struct CostRange {
  double lo_seen = std::numeric_limits<double>::infinity(), hi_seen = -std::numeric_limits<double>::infinity();
  bool any_finite = false, any_blocked = false;
};

CostRange scanCosts(const std::vector<double>& costs, int cols, bool log_scale) {
  CostRange range;
  for (std::size_t s = 0; s < costs.size(); ++s) {
    const double c = costs[s];
    if (std::isinf(c) && c > 0) {
      range.any_blocked = true;
      continue;
    }
    if (!std::isfinite(c) || (log_scale && !(c > 0.0))) {
      throw InvalidArgument("cost map picture: cell (row " + std::to_string(s / cols) + ", col " +
                            std::to_string(s % cols) + ") has cost " + std::to_string(c) +
                            (log_scale ? "; a log-scaled map needs costs > 0 or +inf" : "; need a number or +inf"));
    }
    range.any_finite = true;
    range.lo_seen = std::min(range.lo_seen, c);
    range.hi_seen = std::max(range.hi_seen, c);
  }
  return range;
}

// One pixel per cell, inferno-coloured between t_low and t_high (costs transformed), impassable cells black.
cv::Mat colourCells(const std::vector<double>& costs, int rows, int cols, bool log_scale, double t_low, double t_high) {
  auto transform = [&](double c) { return log_scale ? std::log(c) : c; };
  cv::Mat grey(rows, cols, CV_8UC1);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const double cost = costs[static_cast<std::size_t>(r) * cols + c];
      const double t = std::isfinite(cost) ? std::clamp((transform(cost) - t_low) / (t_high - t_low), 0.0, 1.0) : 0.0;
      grey.at<std::uint8_t>(r, c) = static_cast<std::uint8_t>(std::lround(t * 255.0));
    }
  }
  cv::Mat coloured;
  cv::applyColorMap(grey, coloured, cv::COLORMAP_INFERNO);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (std::isinf(costs[static_cast<std::size_t>(r) * cols + c])) coloured.at<cv::Vec3b>(r, c) = cv::Vec3b(0, 0, 0);
    }
  }
  return coloured;
}

// The legend's colour bar (cheap at the bottom) with five tick labels between t_low and t_high.
void drawColourBar(cv::Mat& canvas, int x0, int top, int bar_w, int bar_h, bool log_scale, double t_low, double t_high) {
  for (int y = 0; y < bar_h; ++y) {
    const double t = 1.0 - static_cast<double>(y) / std::max(1, bar_h - 1);
    cv::Mat one(1, 1, CV_8UC1, cv::Scalar(std::lround(t * 255.0))), rgb;
    cv::applyColorMap(one, rgb, cv::COLORMAP_INFERNO);
    cv::line(canvas, cv::Point(x0, top + y), cv::Point(x0 + bar_w - 1, top + y), cv::Scalar(rgb.at<cv::Vec3b>(0, 0)));
  }
  cv::rectangle(canvas, cv::Rect(x0, top, bar_w, bar_h), kGrey);
  for (int i = 0; i <= 4; ++i) {
    const double t = i / 4.0;
    const double value = log_scale ? std::exp(t_low + t * (t_high - t_low)) : t_low + t * (t_high - t_low);
    const int y = top + static_cast<int>(std::lround((1.0 - t) * (bar_h - 1)));
    cv::line(canvas, cv::Point(x0 + bar_w, y), cv::Point(x0 + bar_w + 3, y), kBlack);
    text(canvas, shortNumber(value), cv::Point(x0 + bar_w + 6, y + 4), 0.4);
  }
}

}  // namespace

cv::Mat renderCostMap(const std::vector<double>& costs, int rows, int cols, const CostMapStyle& style) {
  if (rows < 1 || cols < 1 || costs.size() != static_cast<std::size_t>(rows) * cols) {
    throw InvalidArgument("cost map picture: " + std::to_string(costs.size()) + " costs for " + std::to_string(rows) +
                          " x " + std::to_string(cols) + " cells");
  }
  if (!(style.pixels_per_cell > 0.0)) throw InvalidArgument("cost map picture: pixels_per_cell must be > 0");
  double low = style.low, high = style.high;
  CostRange range = scanCosts(costs, cols, style.log_scale);
  if (!range.any_finite) range.lo_seen = range.hi_seen = 1.0;
  if (std::isnan(low)) low = range.lo_seen;
  if (std::isnan(high)) high = range.hi_seen;
  if (!(high > low)) high = low * (1.0 + 1e-9) + 1e-9;
  auto transform = [&](double c) { return style.log_scale ? std::log(c) : c; };
  const double t_low = transform(low), t_high = transform(high);

  const cv::Mat coloured = colourCells(costs, rows, cols, style.log_scale, t_low, t_high);
  const int width = std::max(1, static_cast<int>(std::lround(cols * style.pixels_per_cell)));
  const int height = std::max(1, static_cast<int>(std::lround(rows * style.pixels_per_cell)));
  cv::Mat map;
  cv::resize(coloured, map, cv::Size(width, height), 0, 0, cv::INTER_NEAREST);

  // Legend: a vertical colour bar (cheap at the bottom) with five tick labels.
  const int bar_w = 18, margin = 10;
  const int label_w = std::max(textWidth(style.caption), textWidth("-0.0e+00")) + 8;
  const int legend_w = margin + bar_w + 6 + label_w;
  const int top = 26, bottom = range.any_blocked ? 26 : 10;
  const int canvas_h = std::max(height, 140);
  cv::Mat canvas(canvas_h, width + legend_w, CV_8UC3, kWhite);
  map.copyTo(canvas(cv::Rect(0, 0, width, height)));
  const int x0 = width + margin, bar_h = canvas_h - top - bottom;
  text(canvas, style.caption, cv::Point(width + 4, 16));
  drawColourBar(canvas, x0, top, bar_w, bar_h, style.log_scale, t_low, t_high);
  if (range.any_blocked) {
    cv::rectangle(canvas, cv::Rect(x0, canvas_h - 18, 10, 10), kBlack, cv::FILLED);
    text(canvas, "impassable", cv::Point(x0 + 14, canvas_h - 9), 0.35);
  }
  return canvas;
}

void drawPath(cv::Mat& picture, const std::vector<int>& path, int cols, double pixels_per_cell, const cv::Scalar& bgr,
              int thickness, bool mark_ends) {
  if (path.empty()) return;
  if (cols < 1 || !(pixels_per_cell > 0.0)) throw InvalidArgument("draw path: need cols >= 1 and pixels_per_cell > 0");
  constexpr int kShift = 4;  // sub-pixel precision for cv::polylines
  std::vector<cv::Point> points;
  points.reserve(path.size());
  for (int s : path) {
    const double x = (s % cols + 0.5) * pixels_per_cell, y = (s / cols + 0.5) * pixels_per_cell;
    points.emplace_back(static_cast<int>(std::lround(x * (1 << kShift))), static_cast<int>(std::lround(y * (1 << kShift))));
  }
  cv::polylines(picture, points, false, bgr, thickness, cv::LINE_AA, kShift);
  if (mark_ends) {
    const int radius = std::max(3, thickness + 2) << kShift;
    cv::circle(picture, points.front(), radius, bgr, cv::FILLED, cv::LINE_AA, kShift);
    cv::circle(picture, points.back(), radius, kWhite, cv::FILLED, cv::LINE_AA, kShift);
    cv::circle(picture, points.back(), radius, bgr, 2, cv::LINE_AA, kShift);
  }
}

cv::Mat resizeToHeight(const cv::Mat& picture, int height) {
  if (picture.empty() || height < 1) throw InvalidArgument("resize: empty picture or height < 1");
  const int width = std::max(1, static_cast<int>(std::lround(picture.cols * static_cast<double>(height) / picture.rows)));
  cv::Mat out;
  cv::resize(picture, out, cv::Size(width, height), 0, 0, height < picture.rows ? cv::INTER_AREA : cv::INTER_NEAREST);
  return out;
}

cv::Mat makePanel(const std::vector<PanelTile>& tiles, int height) {
  if (tiles.empty()) throw InvalidArgument("panel: no tiles");
  const int title_h = 28, gap = 8;
  std::vector<cv::Mat> scaled;
  int width = gap;
  for (const PanelTile& tile : tiles) {
    if (tile.picture.type() != CV_8UC3) throw InvalidArgument("panel: tile '" + tile.title + "' is not 8-bit BGR");
    scaled.push_back(resizeToHeight(tile.picture, height));
    width += std::max(scaled.back().cols, textWidth(tile.title, 0.5) + 8) + gap;
  }
  cv::Mat panel(height + title_h + gap, width, CV_8UC3, kWhite);
  int x = gap;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    text(panel, tiles[i].title, cv::Point(x, 19), 0.5);
    scaled[i].copyTo(panel(cv::Rect(x, title_h, scaled[i].cols, scaled[i].rows)));
    x += std::max(scaled[i].cols, textWidth(tiles[i].title, 0.5) + 8) + gap;
  }
  return panel;
}

cv::Mat lineChart(const std::vector<ChartSeries>& series, const ChartStyle& style) {
  if (style.width < 200 || style.height < 150) throw InvalidArgument("line chart: need at least 200 x 150 pixels");
  auto yValue = [&](double y) { return style.log_y ? std::log10(y) : y; };
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  for (const ChartSeries& s : series) {
    if (s.x.size() != s.y.size()) throw InvalidArgument("line chart: series '" + s.name + "' has x and y of different lengths");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (style.log_y && !(s.y[i] > 0.0))) continue;
      x_lo = std::min(x_lo, s.x[i]), x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, yValue(s.y[i])), y_hi = std::max(y_hi, yValue(s.y[i]));
    }
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (!(x_hi > x_lo)) x_hi = x_lo + 1.0;
  if (!(y_hi > y_lo)) y_hi = y_lo + 1.0;
  const double pad = 0.05 * (y_hi - y_lo);
  y_lo -= pad, y_hi += pad;

  cv::Mat chart(style.height, style.width, CV_8UC3, kWhite);
  const int left = 70, right = 20, top = 52, bottom = 48;
  const cv::Rect plot(left, top, style.width - left - right, style.height - top - bottom);
  auto px = [&](double x) { return plot.x + static_cast<int>(std::lround((x - x_lo) / (x_hi - x_lo) * plot.width)); };
  auto py = [&](double y) { return plot.y + plot.height - static_cast<int>(std::lround((y - y_lo) / (y_hi - y_lo) * plot.height)); };
  for (int i = 0; i <= 5; ++i) {
    const double x = x_lo + i * (x_hi - x_lo) / 5.0, y = y_lo + i * (y_hi - y_lo) / 5.0;
    cv::line(chart, cv::Point(px(x), plot.y), cv::Point(px(x), plot.y + plot.height), kLightGrey);
    cv::line(chart, cv::Point(plot.x, py(y)), cv::Point(plot.x + plot.width, py(y)), kLightGrey);
    const bool whole = x_lo == std::floor(x_lo) && x_hi == std::floor(x_hi) && x_hi - x_lo >= 5.0;
    const std::string xs = whole ? std::to_string(static_cast<long>(std::lround(x))) : shortNumber(x);
    const std::string ys = shortNumber(style.log_y ? std::pow(10.0, y) : y);
    text(chart, xs, cv::Point(px(x) - textWidth(xs, 0.4) / 2, plot.y + plot.height + 16), 0.4);
    text(chart, ys, cv::Point(plot.x - textWidth(ys, 0.4) - 6, py(y) + 4), 0.4);
  }
  cv::rectangle(chart, plot, kGrey);
  text(chart, style.title, cv::Point(left, 22), 0.55);
  text(chart, style.x_label, cv::Point(plot.x + plot.width / 2 - textWidth(style.x_label) / 2, style.height - 10));
  text(chart, style.y_label + (style.log_y ? " (log scale)" : ""), cv::Point(6, 42), 0.4, kGrey);
  int legend_y = plot.y + 18;
  for (const ChartSeries& s : series) {
    std::vector<cv::Point> points;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (style.log_y && !(s.y[i] > 0.0))) continue;
      points.emplace_back(px(s.x[i]), py(yValue(s.y[i])));
    }
    if (points.empty()) continue;
    cv::polylines(chart, points, false, s.bgr, 2, cv::LINE_AA);
    if (points.size() == 1) cv::circle(chart, points[0], 3, s.bgr, cv::FILLED, cv::LINE_AA);
    const int lx = plot.x + plot.width - textWidth(s.name) - 40;
    cv::line(chart, cv::Point(lx, legend_y - 4), cv::Point(lx + 24, legend_y - 4), s.bgr, 2, cv::LINE_AA);
    text(chart, s.name, cv::Point(lx + 30, legend_y));
    legend_y += 18;
  }
  return chart;
}

void writeImage(const std::string& path, const cv::Mat& picture) {
  const std::size_t dot = path.find_last_of('.');
  const std::string extension = dot == std::string::npos ? "" : path.substr(dot);
  std::vector<std::uint8_t> encoded;
  bool ok = false;
  try {
    ok = !picture.empty() && !extension.empty() && cv::imencode(extension, picture, encoded);
  } catch (const cv::Exception& e) {
    throw DataError("cannot write image '" + path + "': " + e.what() + " (use .png, .jpg or .tiff)");
  }
  if (!ok) throw DataError("cannot write image '" + path + "': cannot encode it as '" + extension + "' (use .png, .jpg or .tiff)");
  try {
    writeFileAtomically(path, std::string(encoded.begin(), encoded.end()));
  } catch (const Error& e) {
    throw DataError(e.what());
  }
}

}  // namespace mmp
