// lineChart (render.hpp): training curves and the benchmarks' charts.
#include <mmp/maps/render.hpp>

#include "render_text.hpp"

#include <mmp/core/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp {

using detail::kGrey;
using detail::kLightGrey;
using detail::kWhite;
using detail::Pen;

namespace {

// One y axis: the range of its series' values (log10 of them on a log axis), padded by 5 %, and its
// round ticks (in the values' own units).
struct Axis {
  bool log = false;
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  std::vector<double> ticks;

  bool shows(double y) const { return std::isfinite(y) && (!log || y > 0.0); }
  double position(double y) const { return log ? std::log10(y) : y; }
  void include(double y) { lo = std::min(lo, position(y)), hi = std::max(hi, position(y)); }
  bool used() const { return std::isfinite(lo); }
  void finish() {
    if (!used()) lo = 0.0, hi = 1.0;
    if (!(hi > lo)) hi = lo + (log ? 0.1 : 1.0);  // one value: a small range around it
    const double pad = 0.05 * (hi - lo);
    lo -= pad, hi += pad;
    ticks = log ? roundTicks(std::pow(10.0, lo), std::pow(10.0, hi), true, 5) : roundTicks(lo, hi, false, 5);
  }
};

// The series with a point to draw, the x range and the two y axes (left, right) they span.
struct ChartRanges {
  std::vector<const ChartSeries*> drawn;
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -std::numeric_limits<double>::infinity();
  Axis axes[2];
  bool right_used = false;
};

ChartRanges chartRanges(const std::vector<ChartSeries>& series, bool log_y) {
  ChartRanges r;
  r.axes[0].log = r.axes[1].log = log_y;
  for (const ChartSeries& s : series) {
    if (s.x.size() != s.y.size()) throw InvalidArgument("line chart: series '" + s.name + "' has x and y of different lengths");
    Axis& axis = r.axes[s.right_axis ? 1 : 0];
    bool any = false;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !axis.shows(s.y[i])) continue;
      r.x_lo = std::min(r.x_lo, s.x[i]), r.x_hi = std::max(r.x_hi, s.x[i]);
      axis.include(s.y[i]);
      any = true;
    }
    if (any) r.drawn.push_back(&s);
  }
  if (!std::isfinite(r.x_lo)) r.x_lo = 0.0, r.x_hi = 1.0;
  if (!(r.x_hi > r.x_lo)) r.x_hi = r.x_lo + 1.0;
  r.right_used = r.axes[1].used();
  for (Axis& axis : r.axes) axis.finish();
  return r;
}

}  // namespace

cv::Mat lineChart(const std::vector<ChartSeries>& series, const ChartStyle& style) {
  if (style.width < 200 || style.height < 150) throw InvalidArgument("line chart: need at least 200 x 150 pixels");
  const ChartRanges ranges = chartRanges(series, style.log_y);
  const std::vector<const ChartSeries*>& drawn = ranges.drawn;
  const double x_lo = ranges.x_lo, x_hi = ranges.x_hi;
  const Axis* axes = ranges.axes;
  const bool right_used = ranges.right_used;

  cv::Mat chart(style.height, style.width, CV_8UC3, kWhite);
  const Pen pen{drawingScale(chart.size()), 0.4}, text = pen.sized(0.45), title = pen.sized(0.55);
  auto labelsWidth = [&](const Axis& axis) {
    int w = 0;
    for (double v : axis.ticks) w = std::max(w, pen.width(tickText(v)));
    return w;
  };
  // Above the plot: the title, a legend row per series, the axes' captions.
  const int row = text.height() + pen.px(9);
  const int legend_top = title.height() + pen.px(16);
  const int captions = legend_top + static_cast<int>(drawn.size()) * row + pen.px(4);
  const int left = labelsWidth(axes[0]) + pen.px(14), right = right_used ? labelsWidth(axes[1]) + pen.px(14) : pen.px(20);
  const int top = captions + pen.height() + pen.px(10), bottom = pen.height() + text.height() + pen.px(24);
  if (style.width - left - right < 50 || style.height - top - bottom < 40) {
    throw InvalidArgument("line chart: " + std::to_string(style.width) + " x " + std::to_string(style.height) +
                          " pixels leave no room for the plot beside the legend of " + std::to_string(drawn.size()) + " series");
  }
  const cv::Rect plot(left, top, style.width - left - right, style.height - top - bottom);
  auto px = [&](double x) { return plot.x + static_cast<int>(std::lround((x - x_lo) / (x_hi - x_lo) * plot.width)); };
  auto py = [&](const Axis& axis, double y) {
    return plot.y + plot.height - static_cast<int>(std::lround((axis.position(y) - axis.lo) / (axis.hi - axis.lo) * plot.height));
  };

  // Round ticks; the first x too when it is a whole number (epoch 1 before 10, 20, ...) with room to spare.
  std::vector<double> x_ticks = roundTicks(x_lo, x_hi, false, 6);
  if (x_lo == std::floor(x_lo) && x_ticks.size() >= 2 && x_ticks.front() > x_lo &&
      x_ticks.front() - x_lo >= 0.4 * (x_ticks[1] - x_ticks[0])) {
    x_ticks.insert(x_ticks.begin(), x_lo);
  }
  for (double x : x_ticks) {
    cv::line(chart, cv::Point(px(x), plot.y), cv::Point(px(x), plot.y + plot.height), kLightGrey, pen.stroke());
    const std::string label = tickText(x);
    pen.write(chart, label, cv::Point(px(x) - pen.width(label) / 2, plot.y + plot.height + pen.height() + pen.px(8)));
  }
  // With two axes, each axis's labels take the colour of its first series, so a line is read on its own axis.
  const ChartSeries* first[2] = {nullptr, nullptr};
  for (const ChartSeries* s : drawn) {
    if (!first[s->right_axis ? 1 : 0]) first[s->right_axis ? 1 : 0] = s;
  }
  const cv::Scalar left_colour = right_used && first[0] ? first[0]->bgr : detail::kBlack;
  for (double value : axes[0].ticks) {
    const int y = py(axes[0], value);
    cv::line(chart, cv::Point(plot.x, y), cv::Point(plot.x + plot.width, y), kLightGrey, pen.stroke());
    const std::string label = tickText(value);
    pen.write(chart, label, cv::Point(plot.x - pen.width(label) - pen.px(6), y + pen.height() / 2), left_colour);
  }
  if (first[1]) {
    for (double value : axes[1].ticks) {
      const int y = py(axes[1], value), x = plot.x + plot.width;
      cv::line(chart, cv::Point(x, y), cv::Point(x + pen.px(5), y), first[1]->bgr, pen.stroke());
      pen.write(chart, tickText(value), cv::Point(x + pen.px(8), y + pen.height() / 2), first[1]->bgr);
    }
  }
  cv::rectangle(chart, plot, kGrey, pen.stroke());

  title.write(chart, style.title, cv::Point(pen.px(6), title.height() + pen.px(8)));
  const int line = std::max(2, pen.px(2));
  for (std::size_t k = 0; k < drawn.size(); ++k) {
    const ChartSeries& s = *drawn[k];
    const int y = legend_top + static_cast<int>(k) * row + text.height();
    cv::line(chart, cv::Point(pen.px(8), y - text.height() / 2), cv::Point(pen.px(34), y - text.height() / 2), s.bgr, line, cv::LINE_AA);
    std::string name = s.name;  // a long name is cut to the chart's width
    while (name.size() > 4 && pen.px(42) + text.width(name) > style.width - pen.px(6)) name = name.substr(0, name.size() - 4) + "...";
    text.write(chart, name, cv::Point(pen.px(42), y));
  }
  const std::string log_note = style.log_y ? "log scale" : "";
  auto caption = [&](const std::string& label) {
    return label.empty() ? log_note : log_note.empty() ? label : label + " (" + log_note + ")";
  };
  pen.write(chart, caption(style.y_label), cv::Point(pen.px(6), captions + pen.height()), right_used ? left_colour : kGrey);
  if (first[1]) {
    const std::string right_caption = caption(style.y2_label);
    pen.write(chart, right_caption, cv::Point(style.width - pen.width(right_caption) - pen.px(6), captions + pen.height()),
              first[1]->bgr);
  }
  text.write(chart, style.x_label, cv::Point(plot.x + plot.width / 2 - text.width(style.x_label) / 2, style.height - pen.px(8)));

  for (const ChartSeries* s : drawn) {
    const Axis& axis = axes[s->right_axis ? 1 : 0];
    std::vector<cv::Point> points;
    for (std::size_t i = 0; i < s->x.size(); ++i) {
      if (std::isfinite(s->x[i]) && axis.shows(s->y[i])) points.emplace_back(px(s->x[i]), py(axis, s->y[i]));
    }
    cv::polylines(chart, points, false, s->bgr, line, cv::LINE_AA);
    if (points.size() == 1) cv::circle(chart, points[0], pen.px(3), s->bgr, cv::FILLED, cv::LINE_AA);
  }
  return chart;
}

}  // namespace mmp
