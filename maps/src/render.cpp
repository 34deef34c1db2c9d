// Cost maps and their colour bars, round ticks, panels and image files (render.hpp).
#include <mmp/maps/render.hpp>

#include "render_text.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mmp {

using detail::kBlack;
using detail::kGrey;
using detail::kWhite;
using detail::Pen;

namespace {

// d x 10^k, without the rounding noise of multiplying by a negative power of ten (3 x 0.1 != 0.3).
double digitTimesPower(double d, int k) { return k >= 0 ? d * std::pow(10.0, k) : d / std::pow(10.0, -k); }

// The multiples of 1, 2 or 5 x 10^k in [low, high]: the step whose count is nearest `target`
// (the larger step on a tie), at least two values where any step gives two.
std::vector<double> linearTicks(double low, double high, int target) {
  const int k0 = static_cast<int>(std::floor(std::log10((high - low) / target)));
  std::vector<double> best;
  for (int k = k0 - 1; k <= k0 + 1; ++k) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double step = digitTimesPower(m, k);
      std::vector<double> ticks;
      const long first = static_cast<long>(std::ceil(low / step - 1e-9)), last = static_cast<long>(std::floor(high / step + 1e-9));
      for (long i = first; i <= last; ++i) ticks.push_back(digitTimesPower(static_cast<double>(i) * m, k));
      const bool enough = ticks.size() >= 2, best_enough = best.size() >= 2;
      const auto miss = [&](const std::vector<double>& t) { return std::abs(static_cast<long>(t.size()) - target); };
      if ((enough && !best_enough) || (enough == best_enough && miss(ticks) <= miss(best))) best = std::move(ticks);
    }
  }
  return best;
}

// d x 10^k in [low, high] for the coarsest set of digits that gives target - 1 values (powers of ten
// thinned to every n-th over a wide range); linear ticks over less than a factor 3, where even every
// digit gives few values, all near one end.
std::vector<double> logTicks(double low, double high, int target) {
  if (high < 3.0 * low) return linearTicks(low, high, target);
  const int k_lo = static_cast<int>(std::floor(std::log10(low))), k_hi = static_cast<int>(std::ceil(std::log10(high)));
  std::vector<double> ticks;
  for (const std::vector<int>& digits : {std::vector<int>{1}, {1, 2, 5}, {1, 2, 3, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
    ticks.clear();
    for (int k = k_lo; k <= k_hi; ++k) {
      for (int d : digits) {
        const double v = digitTimesPower(d, k);
        if (v >= low * (1.0 - 1e-9) && v <= high * (1.0 + 1e-9)) ticks.push_back(v);
      }
    }
    if (static_cast<int>(ticks.size()) >= target - 1) {
      if (digits.size() == 1 && static_cast<int>(ticks.size()) > target + 2) {  // many decades: every n-th power
        const int n = static_cast<int>(std::ceil(static_cast<double>(ticks.size()) / target));
        std::vector<double> thinned;
        for (double v : ticks) {
          if (static_cast<int>(std::lround(std::log10(v))) % n == 0) thinned.push_back(v);
        }
        ticks = thinned;
      }
      break;
    }
  }
  return ticks;
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

// The colours of the "inferno" map from cheap (0) to dear (255).
cv::Mat infernoColours() {
  cv::Mat ramp(256, 1, CV_8UC1), colours;
  for (int i = 0; i < 256; ++i) ramp.at<std::uint8_t>(i) = static_cast<std::uint8_t>(i);
  cv::applyColorMap(ramp, colours, cv::COLORMAP_INFERNO);
  return colours;
}

// A cost map's colour scale: costs (log-transformed or not) from t_low (darkest) to t_high (brightest).
struct ColourScale {
  bool log_scale = true;
  double t_low = 0.0, t_high = 1.0;

  double transform(double cost) const { return log_scale ? std::log(cost) : cost; }
  double position(double cost) const { return std::clamp((transform(cost) - t_low) / (t_high - t_low), 0.0, 1.0); }
};

// One pixel per cell, inferno-coloured, impassable cells in impassableColour().
cv::Mat colourCells(const std::vector<double>& costs, int rows, int cols, const ColourScale& scale) {
  const cv::Mat inferno = infernoColours();
  const cv::Vec3b blocked(static_cast<std::uint8_t>(impassableColour()[0]), static_cast<std::uint8_t>(impassableColour()[1]),
                          static_cast<std::uint8_t>(impassableColour()[2]));
  cv::Mat coloured(rows, cols, CV_8UC3);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const double cost = costs[static_cast<std::size_t>(r) * cols + c];
      coloured.at<cv::Vec3b>(r, c) =
          std::isfinite(cost) ? inferno.at<cv::Vec3b>(static_cast<int>(std::lround(scale.position(cost) * 255.0))) : blocked;
    }
  }
  return coloured;
}

// The text of `caption` turned a quarter to read upwards, on white.
cv::Mat verticalText(const Pen& pen, const std::string& caption) {
  const cv::Size size = pen.extent(caption);
  const int descent = pen.px(3);
  cv::Mat flat(size.height + descent + pen.stroke(), size.width + pen.stroke(), CV_8UC3, kWhite), turned;
  pen.write(flat, caption, cv::Point(0, size.height));
  cv::rotate(flat, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
  return turned;
}

// A map's colour bar: the bar (cheap at the bottom) with round ticks, the caption along it and, for a
// map with impassable cells, their colour labelled below it; as high as the map or more.
cv::Mat colourBar(const ColourScale& scale, double low, double high, const std::string& caption, bool any_blocked,
                  int map_height, const Pen& pen) {
  std::vector<std::string> labels;
  const std::vector<double> ticks = roundTicks(low, high, scale.log_scale, 5);
  int label_w = 0;
  for (double v : ticks) {
    labels.push_back(tickText(v));
    label_w = std::max(label_w, pen.width(labels.back()));
  }
  const cv::Mat turned = verticalText(pen, caption);
  const int margin = pen.px(10), bar_w = pen.px(18), tick = pen.px(5), gap = pen.px(4);
  const int pad = pen.height() / 2 + pen.px(4);  // the top and bottom labels stay inside
  const int swatch = pen.px(14), swatch_row = any_blocked ? swatch + pen.px(12) : 0;
  const int height = std::max(map_height, turned.rows + 2 * pad + swatch_row);
  const int width = std::max(margin + bar_w + tick + gap + label_w + gap + turned.cols + margin,
                             margin + swatch + gap + pen.width("impassable") + margin);
  cv::Mat bar(height, width, CV_8UC3, kWhite);

  const int x0 = margin, top = pad, bar_h = height - 2 * pad - swatch_row;
  const cv::Mat inferno = infernoColours();
  for (int y = 0; y < bar_h; ++y) {
    const double t = 1.0 - static_cast<double>(y) / std::max(1, bar_h - 1);
    cv::line(bar, cv::Point(x0, top + y), cv::Point(x0 + bar_w - 1, top + y),
             cv::Scalar(inferno.at<cv::Vec3b>(static_cast<int>(std::lround(t * 255.0)))));
  }
  cv::rectangle(bar, cv::Rect(x0, top, bar_w, bar_h), kGrey, pen.stroke());
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    const int y = top + static_cast<int>(std::lround((1.0 - scale.position(ticks[i])) * (bar_h - 1)));
    cv::line(bar, cv::Point(x0 + bar_w, y), cv::Point(x0 + bar_w + tick, y), kBlack, pen.stroke());
    pen.write(bar, labels[i], cv::Point(x0 + bar_w + tick + gap, y + pen.height() / 2));
  }
  const int caption_x = x0 + bar_w + tick + gap + label_w + gap;
  const int caption_y = std::max(0, top + (bar_h - turned.rows) / 2);
  turned.copyTo(bar(cv::Rect(caption_x, caption_y, turned.cols, std::min(turned.rows, height - caption_y))));
  if (any_blocked) {
    const cv::Rect box(x0, height - pad - swatch, swatch, swatch);
    cv::rectangle(bar, box, impassableColour(), cv::FILLED);
    cv::rectangle(bar, box, kGrey, pen.stroke());
    pen.write(bar, "impassable", cv::Point(x0 + swatch + gap, box.y + swatch / 2 + pen.height() / 2));
  }
  return bar;
}

}  // namespace

double drawingScale(cv::Size picture) {
  return std::max(1.0, std::sqrt(static_cast<double>(picture.width) * picture.height) / 600.0);
}

std::vector<double> roundTicks(double low, double high, bool log_scale, int target) {
  if (!(std::isfinite(low) && std::isfinite(high) && low < high) || (log_scale && !(low > 0.0)) || target < 2) {
    throw InvalidArgument("round ticks: need finite low < high (> 0 on a log scale) and target >= 2, got [" +
                          tickText(low) + ", " + tickText(high) + "], target " + std::to_string(target));
  }
  return log_scale ? logTicks(low, high, target) : linearTicks(low, high, target);
}

std::string tickText(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value == 0.0 ? 0.0 : value);  // no "-0"
  return buffer;
}

cv::Scalar impassableColour() { return cv::Scalar(150, 150, 150); }

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
  ColourScale scale{style.log_scale};
  scale.t_low = scale.transform(low), scale.t_high = scale.transform(high);

  const cv::Mat coloured = colourCells(costs, rows, cols, scale);
  const int width = std::max(1, static_cast<int>(std::lround(cols * style.pixels_per_cell)));
  const int height = std::max(1, static_cast<int>(std::lround(rows * style.pixels_per_cell)));
  cv::Mat map;
  cv::resize(coloured, map, cv::Size(width, height), 0, 0, cv::INTER_NEAREST);
  if (!style.colour_bar) return map;

  const Pen pen{drawingScale(map.size())};
  const cv::Mat bar = colourBar(scale, low, high, style.caption + (style.log_scale ? ", log scale" : ""),
                                range.any_blocked, height, pen);
  cv::Mat canvas(bar.rows, width + bar.cols, CV_8UC3, kWhite);
  map.copyTo(canvas(cv::Rect(0, 0, width, height)));
  bar.copyTo(canvas(cv::Rect(width, 0, bar.cols, bar.rows)));
  return canvas;
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
  if (height < 1) throw InvalidArgument("panel: height < 1");
  const Pen pen{drawingScale(cv::Size(height, height)), 0.5};
  const int title_h = pen.height() + pen.px(16), gap = pen.px(8);
  std::vector<cv::Mat> scaled;
  int width = gap;
  for (const PanelTile& tile : tiles) {
    if (tile.picture.type() != CV_8UC3) throw InvalidArgument("panel: tile '" + tile.title + "' is not 8-bit BGR");
    scaled.push_back(resizeToHeight(tile.picture, height));
    width += std::max(scaled.back().cols, pen.width(tile.title) + gap) + gap;
  }
  cv::Mat panel(height + title_h + gap, width, CV_8UC3, kWhite);
  int x = gap;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    pen.write(panel, tiles[i].title, cv::Point(x, pen.height() + pen.px(8)));
    scaled[i].copyTo(panel(cv::Rect(x, title_h, scaled[i].cols, scaled[i].rows)));
    x += std::max(scaled[i].cols, pen.width(tiles[i].title) + gap) + gap;
  }
  return panel;
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
