// `mmp plan` and `mmp costmap`: use a saved model on any image.  The model carries its feature
// settings and scaling (FeatureStack::store), so the image gets exactly the training transform.
//   mmp plan --model M --image I --start X,Y --goal X,Y [--out path.csv] [--png plan.png]
//   mmp costmap --model M --image I [--png costmap.png] [--raw costmap.tiff]
#include "commands.hpp"
#include "demonstration_file.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <opencv2/core.hpp>

#include <cmath>
#include <cstdio>
#include <memory>

namespace mmp::tools {
namespace {

struct ModelOnImage {
  Model model;
  FeatureStack stack;
  cv::Mat image;
  FeatureMap map;
  std::vector<double> costs;
};

ModelOnImage applyModel(const std::string& model_path, const std::string& image_path) {
  ModelOnImage m;
  m.model = loadModel(model_path);
  try {
    m.stack = FeatureStack::fromModel(m.model);
  } catch (const DataError& e) {
    throw DataError("'" + model_path + "': " + e.what());
  }
  m.image = loadImage(image_path);
  m.map = m.stack.map(m.image);
  CostForm form = CostForm::Linear;  // a model without the setting has linear costs
  if (const auto it = m.model.settings.find("costs"); it != m.model.settings.end()) {
    try {
      form = parseCostForm(it->second);
    } catch (const InvalidArgument&) {
      throw DataError("'" + model_path + "': setting 'costs' = '" + it->second + "' must be linear or exponential");
    }
  }
  if (form == CostForm::Linear) {
    // The positive-cost set of training (planning/loss.hpp): w >= 0 and a bias > 0 keep every cell > 0.
    for (Eigen::Index k = 0; k < m.model.weights.size(); ++k) {
      if (m.model.weights[k] < 0.0 || (k == kBiasIndex && !(m.model.weights[k] > 0.0))) {
        throw DataError("'" + model_path + "': weight " + std::to_string(k) + " ('" + m.stack.names()[static_cast<std::size_t>(k)] +
                        "') is " + std::to_string(m.model.weights[k]) +
                        "; a linear-cost model needs every weight >= 0 and a bias > 0, so that A* sees positive costs");
      }
    }
  }
  m.map.costs(m.model.weights, m.costs, form);
  for (std::size_t s = 0; s < m.costs.size(); ++s) {
    if (!(m.costs[s] > 0.0) || !std::isfinite(m.costs[s])) {  // exponential costs can overflow
      throw DataError("'" + model_path + "' gives cell (row " + std::to_string(s / static_cast<std::size_t>(m.map.cols())) +
                      ", col " + std::to_string(s % static_cast<std::size_t>(m.map.cols())) + ") of '" + image_path +
                      "' the cost " + std::to_string(m.costs[s]) + "; A* needs finite costs > 0 (retrain the model)");
    }
  }
  return m;
}

// "X,Y" in pixels -> cell index.
int parsePoint(const std::string& text, const std::string& flag, const ModelOnImage& m) {
  const std::size_t comma = text.find(',');
  double x = 0.0, y = 0.0;
  bool ok = comma != std::string::npos;
  if (ok) {
    try {
      std::size_t used_x = 0, used_y = 0;
      x = std::stod(text.substr(0, comma), &used_x);
      y = std::stod(text.substr(comma + 1), &used_y);
      ok = used_x == comma && used_y == text.size() - comma - 1;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  const int k = m.stack.settings().cell_size;
  const double width = static_cast<double>(m.map.cols()) * k, height = static_cast<double>(m.map.rows()) * k;
  if (!ok) throw InvalidArgument(flag + " '" + text + "': expected X,Y in pixels, e.g. 120,340");
  if (!(x >= 0 && x < width && y >= 0 && y < height)) {
    throw InvalidArgument(flag + " " + text + " lies outside the image's whole cells (0 <= x < " +
                          std::to_string(static_cast<int>(width)) + ", 0 <= y < " + std::to_string(static_cast<int>(height)) + ")");
  }
  return static_cast<int>(y) / k * m.map.cols() + static_cast<int>(x) / k;
}

cv::Mat croppedImage(const ModelOnImage& m) {
  const int k = m.stack.settings().cell_size;
  return m.image(cv::Rect(0, 0, m.map.cols() * k, m.map.rows() * k)).clone();
}

struct PlanOptions {
  std::string model, image, start, goal, out, png;
};

void runPlan(const PlanOptions& o) {
  const ModelOnImage m = applyModel(o.model, o.image);
  const int start = parsePoint(o.start, "--start", m), goal = parsePoint(o.goal, "--goal", m);
  GridPlanner planner(m.map.rows(), m.map.cols());
  const PlanResult plan = planner.plan(m.costs, start, goal);
  if (plan.status != PlanStatus::Success) throw DataError("no plan from " + o.start + " to " + o.goal + ": " + plan.message);
  const int k = m.stack.settings().cell_size;
  std::printf("plan: %zu cells, cost %.4g under the model, %ld expansions\n", plan.path.size(), plan.cost, plan.expansions);
  if (!o.out.empty()) {
    writePathCsv(o.out, {plan.path}, m.map.cols(), k);
    std::printf("wrote %s\n", o.out.c_str());
  }
  if (!o.png.empty()) {
    cv::Mat picture = croppedImage(m);
    drawPath(picture, plan.path, m.map.cols(), k, cv::Scalar(40, 40, 255), std::max(2, k / 2));
    writeImage(o.png, picture);
    std::printf("wrote %s\n", o.png.c_str());
  }
}

struct CostmapOptions {
  std::string model, image, png, raw;
};

void runCostmap(const CostmapOptions& o) {
  const ModelOnImage m = applyModel(o.model, o.image);
  double lo = INFINITY, hi = 0.0;
  for (double c : m.costs) lo = std::min(lo, c), hi = std::max(hi, c);
  std::printf("cost map: %d x %d cells of %d px, costs in [%.4g, %.4g]\n", m.map.rows(), m.map.cols(),
              m.stack.settings().cell_size, lo, hi);
  if (!o.png.empty()) {
    CostMapStyle style;
    style.pixels_per_cell = m.stack.settings().cell_size;
    writeImage(o.png, renderCostMap(m.costs, m.map.rows(), m.map.cols(), style));
    std::printf("wrote %s\n", o.png.c_str());
  }
  if (!o.raw.empty()) {
    cv::Mat raw(m.map.rows(), m.map.cols(), CV_32FC1);
    for (int s = 0; s < m.map.cells(); ++s) raw.at<float>(s / m.map.cols(), s % m.map.cols()) = static_cast<float>(m.costs[static_cast<std::size_t>(s)]);
    writeImage(o.raw, raw);
    std::printf("wrote %s (32-bit float, one value per cell)\n", o.raw.c_str());
  }
}

}  // namespace

void addPlanCommand(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "Plan a path on an image with a saved model (A* on the learned cost map)");
  cmd->add_option("--model", o->model, "model file written by mmp train")->required();
  cmd->add_option("--image", o->image, "image (PNG, JPEG or TIFF)")->required();
  cmd->add_option("--start", o->start, "start X,Y in pixels")->required();
  cmd->add_option("--goal", o->goal, "goal X,Y in pixels")->required();
  cmd->add_option("--out", o->out, "path file to write (CSV path,x,y at cell centres; readable as demonstrations)");
  cmd->add_option("--png", o->png, "picture of the path over the image");
  cmd->callback([o] { runPlan(*o); });
}

void addCostmapCommand(CLI::App& app) {
  auto o = std::make_shared<CostmapOptions>();
  CLI::App* cmd = app.add_subcommand("costmap", "Compute the learned cost map of an image with a saved model");
  cmd->add_option("--model", o->model, "model file written by mmp train")->required();
  cmd->add_option("--image", o->image, "image (PNG, JPEG or TIFF)")->required();
  cmd->add_option("--png", o->png, "colour-mapped cost map with a legend");
  cmd->add_option("--raw", o->raw, "raw cost per cell as a 32-bit float TIFF (.tiff)");
  cmd->callback([o] {
    if (o->png.empty() && o->raw.empty()) throw InvalidArgument("mmp costmap: give --png and/or --raw");
    runCostmap(*o);
  });
}

}  // namespace mmp::tools
