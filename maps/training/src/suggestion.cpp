#include <mmp/maps/training/suggestion.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace mmp {

const std::vector<std::string>& suggestionRules() {
  static const std::vector<std::string> rules{describe(SuggestionRule::Change), describe(SuggestionRule::Committee)};
  return rules;
}

namespace {

// The mean distance (cells) of the cells of `path` to the nearest cell of `to`.
double strayCells(const std::vector<int>& path, const std::vector<int>& to, int cols) {
  double sum = 0.0;
  for (int a : path) sum += nearestCellDistance(a, to, cols);
  return path.empty() ? 0.0 : sum / static_cast<double>(path.size());
}

// The features of a regular sample of the maps' passable cells (at most `count`, shared evenly among
// the maps), each column centred on its sample mean: rows of the matrix, one a cell.
Eigen::MatrixXd centredSample(const std::vector<const FeatureMap*>& maps, int count) {
  std::vector<Eigen::VectorXf> rows;
  const int share = std::max(1, count / static_cast<int>(maps.size()));
  for (const FeatureMap* map : maps) {
    std::vector<int> passable;
    for (int s = 0; s < map->cells(); ++s) {
      if (!map->isBlocked(s)) passable.push_back(s);
    }
    const std::size_t stride = std::max<std::size_t>(1, (passable.size() + static_cast<std::size_t>(share) - 1) / static_cast<std::size_t>(share));
    for (std::size_t i = 0; i < passable.size(); i += stride) rows.push_back(map->cellVector(passable[i]));
  }
  Eigen::MatrixXd x(static_cast<Eigen::Index>(rows.size()), maps.front()->features());
  for (std::size_t i = 0; i < rows.size(); ++i) x.row(static_cast<Eigen::Index>(i)) = rows[i].cast<double>().transpose();
  if (x.rows() > 0) x.rowwise() -= x.colwise().mean();
  return x;
}

Eigen::VectorXd pathFeatures(const FeatureMap& map, const std::vector<int>& path) {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(map.features());
  for (int s : path) map.addCell(s, 1.0, f);
  return f;
}

void checkBox(const SuggestionArea::Box& box, const SuggestionArea::Box& whole, const std::string& what) {
  if (box.empty() || box.row0 < 0 || box.col0 < 0 || box.row1 > whole.row1 || box.col1 > whole.col1) {
    throw InvalidArgument("suggestions: " + what + " (cell rows " + std::to_string(box.row0) + ".." + std::to_string(box.row1) +
                          ", columns " + std::to_string(box.col0) + ".." + std::to_string(box.col1) +
                          ") is empty or off the map's " + std::to_string(whole.row1) + " x " + std::to_string(whole.col1) + " cells");
  }
}

// Whether a pair's plan under the model stays out of the area's excluded boxes and off its taught
// ground (most of its cells farther than kTaughtRadius cells from every taught cell).
class PlanCheck {
 public:
  PlanCheck(const CostModel& model, const FeatureMap& map, const SuggestionArea& area) : area_(area), cols_(map.cols()) {
    if (area.excluded.empty() && area.taught.empty()) return;
    costs_ = model.costs(map).costs;
    near_taught_.assign(static_cast<std::size_t>(map.cells()), 0);
    const int r = SuggestionArea::kTaughtRadius, rows = map.rows();
    for (const int cell : area.taught) {
      if (cell < 0 || cell >= map.cells()) continue;
      for (int dr = -r; dr <= r; ++dr) {
        for (int dc = -r; dc <= r; ++dc) {
          const int row = cell / cols_ + dr, col = cell % cols_ + dc;
          if (row >= 0 && row < rows && col >= 0 && col < cols_) near_taught_[static_cast<std::size_t>(row * cols_ + col)] = 1;
        }
      }
    }
  }

  bool keeps(int start, int goal) const {
    if (costs_.empty()) return true;
    GridPlanner planner(static_cast<int>(costs_.size()) / cols_, cols_);
    const PlanResult plan = planner.plan(costs_, start, goal);
    if (plan.status != PlanStatus::Success) return false;
    long along = 0;
    for (const int cell : plan.path) {
      for (const SuggestionArea::Box& box : area_.excluded) {
        if (box.contains(cell, cols_)) return false;
      }
      along += near_taught_[static_cast<std::size_t>(cell)];
    }
    return 2 * along <= static_cast<long>(plan.path.size());
  }

 private:
  const SuggestionArea& area_;
  int cols_;
  std::vector<double> costs_;
  std::vector<std::uint8_t> near_taught_;
};

}  // namespace

std::vector<double> demonstrationValues(const CostModel& model, const FeatureMap& map,
                                        const std::vector<std::pair<int, int>>& pairs, const SuggestionSettings& settings,
                                        const std::vector<const FeatureMap*>& ground) {
  if (model.readsPixels()) {
    throw InvalidArgument("suggestions: " + model.source() + " is a network model; the suggestion rules perturb a linear or LEARCH "
                          "model's weights and tree steps, and a network's are not built (teach it with mmp adapt)");
  }
  settings.validate();
  for (const FeatureMap* g : ground) {
    if (g == nullptr || g->features() != map.features()) {
      throw InvalidArgument("suggestions: every ground map must be made by the model's features, as the image's map is");
    }
  }
  // members + 1 cost maps: the model's own (index 0), then the perturbed copies
  Random rng(settings.seed);
  std::vector<std::vector<double>> costs(static_cast<std::size_t>(settings.members) + 1);
  for (std::size_t m = 0; m < costs.size(); ++m) {
    Eigen::VectorXd w = model.weights();
    std::vector<double> steps = model.trees().steps();
    if (m > 0) {
      for (Eigen::Index i = 0; i < w.size(); ++i) w[i] *= std::exp(settings.spread * rng.normal());
      for (double& s : steps) s *= std::exp(settings.spread * rng.normal());
    }
    TreeEnsemble trees;  // the model's trees with the member's steps
    for (std::size_t t = 0; t < steps.size(); ++t) trees.add(model.trees().trees()[t], steps[t]);
    model.logCosts(map, w, trees, costs[m]);
    for (double& c : costs[m]) c = std::exp(c);
  }
  const bool change = settings.rule == SuggestionRule::Change;
  const Eigen::MatrixXd sample =
      change ? centredSample(ground.empty() ? std::vector<const FeatureMap*>{&map} : ground, settings.sample_cells)
             : Eigen::MatrixXd();
  std::vector<double> values(pairs.size(), -1.0);
  ThreadPool pool(settings.threads);
  pool.parallelFor(pairs.size(), [&](std::size_t p) {
    GridPlanner planner(map.rows(), map.cols());
    const PlanResult own = planner.plan(costs[0], pairs[p].first, pairs[p].second);
    if (own.status != PlanStatus::Success) return;
    const Eigen::VectorXd own_features = change ? pathFeatures(map, own.path) : Eigen::VectorXd();
    double sum = 0.0;
    for (std::size_t m = 1; m < costs.size(); ++m) {
      const PlanResult other = planner.plan(costs[m], pairs[p].first, pairs[p].second);
      if (other.status != PlanStatus::Success) continue;
      if (!change) {
        sum += strayCells(other.path, own.path, map.cols());
        continue;
      }
      const Eigen::VectorXd g = pathFeatures(map, other.path) - own_features;
      const Eigen::VectorXd moved = sample * g;  // each sampled cell's cost change along g (centred)
      sum += std::sqrt(moved.squaredNorm() / static_cast<double>(std::max<Eigen::Index>(1, moved.size()))) /
             static_cast<double>(own.path.size());
    }
    values[p] = sum / static_cast<double>(settings.members);
  });
  return values;
}

SuggestionArea::Box SuggestionArea::fromPixels(const std::array<double, 4>& b, int cell_size, int rows, int cols, int width,
                                               int height, const std::string& what) {
  const bool finite = std::all_of(b.begin(), b.end(), [](double v) { return std::isfinite(v); });
  if (!finite || !(b[0] >= 0 && b[1] >= 0 && b[2] <= width && b[3] <= height && b[0] < b[2] && b[1] < b[3])) {
    throw InvalidArgument("'" + what + "' must be [x0, y0, x1, y1] in pixels with 0 <= x0 < x1 <= " + std::to_string(width) +
                          " and 0 <= y0 < y1 <= " + std::to_string(height));
  }
  const auto last = [cell_size](double px, int cells) { return std::min(cells, static_cast<int>(std::ceil(px / cell_size))); };
  Box box{std::min(rows - 1, static_cast<int>(b[1] / cell_size)), std::min(cols - 1, static_cast<int>(b[0] / cell_size)),
          last(b[3], rows), last(b[2], cols)};
  box.row1 = std::max(box.row1, box.row0 + 1);
  box.col1 = std::max(box.col1, box.col0 + 1);
  return box;
}

std::vector<SuggestedPair> suggestDemonstrations(const CostModel& model, const FeatureMap& map, const SuggestionSearch& search,
                                                 const SuggestionSettings& settings, int* drawn,
                                                 const std::vector<const FeatureMap*>& ground, const SuggestionArea& area) {
  settings.validate();
  search.validate();
  const int k = model.features().settings().cell_size;
  const int cols = map.cols();
  const auto distance_px = [cols, k](int a, int b) { return std::hypot(a / cols - b / cols, a % cols - b % cols) * k; };
  const SuggestionArea::Box whole{0, 0, map.rows(), map.cols()};
  const SuggestionArea::Box region = area.region.empty() ? whole : area.region;
  for (const SuggestionArea::Box& box : area.excluded) checkBox(box, whole, "an excluded box");
  checkBox(region, whole, "the region");
  const auto excluded = [&](int cell) {
    return std::any_of(area.excluded.begin(), area.excluded.end(), [&](const SuggestionArea::Box& b) { return b.contains(cell, cols); });
  };
  // candidates drawn in the region, a cell of it at a time
  const int region_rows = region.row1 - region.row0, region_cols = region.col1 - region.col0;
  const auto draw = [&](Random& rng) {
    const int c = static_cast<int>(rng.below(static_cast<std::uint64_t>(region_rows) * static_cast<std::uint64_t>(region_cols)));
    return (region.row0 + c / region_cols) * cols + region.col0 + c % region_cols;
  };
  const auto usable = [&](int cell) { return !map.isBlocked(cell) && !excluded(cell); };
  Random rng(settings.seed);
  std::vector<std::pair<int, int>> pairs;
  for (long tries = 0; static_cast<int>(pairs.size()) < search.candidates && tries < 1000L * search.candidates; ++tries) {
    const int a = draw(rng), b = draw(rng);
    if (usable(a) && usable(b) && distance_px(a, b) >= search.min_separation_px) pairs.push_back({a, b});
  }
  if (drawn) *drawn = static_cast<int>(pairs.size());
  if (pairs.empty()) return {};
  const std::vector<double> values = demonstrationValues(model, map, pairs, settings, ground);
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return values[x] > values[y]; });
  const PlanCheck plan_check(model, map, area);
  std::vector<SuggestedPair> chosen;
  for (std::size_t i : order) {
    if (static_cast<int>(chosen.size()) == search.n || values[i] < 0.0) break;
    const auto apart = [&](int end) {
      return std::all_of(chosen.begin(), chosen.end(), [&](const SuggestedPair& c) {
        return distance_px(end, c.start) >= search.min_separation_px / 2 && distance_px(end, c.goal) >= search.min_separation_px / 2;
      });
    };
    if (apart(pairs[i].first) && apart(pairs[i].second) && plan_check.keeps(pairs[i].first, pairs[i].second)) {
      chosen.push_back({pairs[i].first, pairs[i].second, values[i]});
    }
  }
  return chosen;
}

}  // namespace mmp
