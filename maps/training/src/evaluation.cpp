#include <mmp/maps/training/evaluation.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/core/random.hpp>
#include <mmp/planning/loss.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace mmp {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const std::size_t k = std::min(values.size() - 1, rank == 0 ? 0 : rank - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

PlanScorer::PlanScorer(const Region& region, int preferred, double impassable_cost, int cell_size)
    : region_(region), cell_size_(cell_size) {
  if (region.true_costs.empty()) throw InvalidArgument("plan scorer: region '" + region.spec.name + "' has no labels");
  if (!(impassable_cost > 0.0)) throw InvalidArgument("plan scorer: impassable_cost must be > 0");
  scoring_costs_ = region.true_costs;
  on_impassable_.assign(scoring_costs_.size(), 0.0);
  for (std::size_t s = 0; s < scoring_costs_.size(); ++s) {
    if (std::isinf(scoring_costs_[s])) scoring_costs_[s] = impassable_cost, on_impassable_[s] = 1.0;
  }
  on_preferred_.resize(region.cell_labels.size());
  for (std::size_t s = 0; s < on_preferred_.size(); ++s) on_preferred_[s] = region.cell_labels[s] == preferred ? 1.0 : 0.0;
}

void PlanScorer::setReference(const std::vector<int>& reference) {
  reference_ = reference;
  reference_cost_ = pathIntegral(reference, region_.cols(), region_.true_costs);
  if (!std::isfinite(reference_cost_) || !(reference_cost_ > 0.0)) {
    throw InvalidArgument("plan scorer: the reference path's true cost is not finite and positive");
  }
  distance_ = distanceToPath(region_.rows(), region_.cols(), reference);
}

PlanScore PlanScorer::score(const std::vector<int>& plan) const {
  PlanScore s;
  const int cols = region_.cols();
  s.cost_ratio = pathIntegral(plan, cols, scoring_costs_) / reference_cost_;
  const double length = pathLength(plan, cols);
  s.preferred_share = length > 0.0 ? pathIntegral(plan, cols, on_preferred_) / length : on_preferred_[static_cast<std::size_t>(plan.front())];
  s.distances_px.reserve(plan.size());
  double to_reference = 0.0;
  for (int cell : plan) {
    s.distances_px.push_back(distance_[static_cast<std::size_t>(cell)] * cell_size_);
    to_reference += s.distances_px.back();
    if (on_impassable_[static_cast<std::size_t>(cell)] != 0.0) s.feasible = false;
  }
  if (!s.feasible) s.impassable_px = pathIntegral(plan, cols, on_impassable_) * cell_size_;
  // The other direction by brute force: paths hold hundreds of cells, not a map's worth.
  double to_plan = 0.0;
  for (int r : reference_) to_plan += nearestCellDistance(r, plan, cols) * cell_size_;
  s.mhd_px = std::max(to_reference / static_cast<double>(plan.size()), to_plan / static_cast<double>(reference_.size()));
  return s;
}

MethodSummary summarise(const std::vector<PlanScore>& scores) {
  MethodSummary m;
  m.pairs = static_cast<int>(scores.size());
  if (scores.empty()) return m;
  std::vector<double> ratios, distances, mhds;
  double share = 0.0, feasible = 0.0, mhd_sum = 0.0;
  for (const PlanScore& s : scores) {
    ratios.push_back(s.cost_ratio);
    mhds.push_back(s.mhd_px);
    mhd_sum += s.mhd_px;
    distances.insert(distances.end(), s.distances_px.begin(), s.distances_px.end());
    share += s.preferred_share;
    feasible += s.feasible ? 1.0 : 0.0;
  }
  double ratio_sum = 0.0, distance_sum = 0.0;
  for (double r : ratios) ratio_sum += r;
  for (double d : distances) distance_sum += d;
  const double n = static_cast<double>(scores.size());
  m.cost_ratio_mean = ratio_sum / n;
  m.cost_ratio_p95 = percentile(ratios, 0.95);
  m.dist_mean_px = distances.empty() ? 0.0 : distance_sum / static_cast<double>(distances.size());
  m.dist_p95_px = percentile(distances, 0.95);
  m.mhd_mean_px = mhd_sum / n;
  m.mhd_p95_px = percentile(mhds, 0.95);
  m.preferred_share = share / n;
  m.feasible_share = feasible / n;
  return m;
}

const char* verdict(const PairedComparison& c) {
  return c.low > 0.0 ? "better" : c.high < 0.0 ? "worse" : "could be chance";
}

PairedComparison comparePaired(const std::vector<PlanScore>& method, const std::vector<PlanScore>& other,
                               int resamples, std::uint64_t seed) {
  const auto ratios = [](const std::vector<PlanScore>& scores) {
    std::vector<double> r;
    for (const PlanScore& s : scores) r.push_back(s.cost_ratio);
    return r;
  };
  return comparePairedValues(ratios(method), ratios(other), resamples, seed);
}

PairedComparison comparePairedValues(const std::vector<double>& method, const std::vector<double>& other, int resamples,
                                     std::uint64_t seed) {
  if (method.size() != other.size() || method.empty() || resamples < 1) {
    throw InvalidArgument("paired comparison: " + std::to_string(method.size()) + " and " +
                          std::to_string(other.size()) + " scores; needs the same non-zero number of pairs");
  }
  const std::size_t n = method.size();
  std::vector<double> gains(n);
  PairedComparison c;
  c.pairs = static_cast<int>(n);
  for (std::size_t k = 0; k < n; ++k) {
    gains[k] = other[k] - method[k];
    c.gain += gains[k] / static_cast<double>(n);
  }
  Random rng(seed);
  std::vector<double> means(static_cast<std::size_t>(resamples));
  for (double& mean : means) {
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) sum += gains[rng.below(n)];
    mean = sum / static_cast<double>(n);
  }
  c.low = percentile(means, 0.025);
  c.high = percentile(means, 0.975);
  return c;
}

namespace {
const std::vector<std::string> kPairColumns = {"region",   "pair",   "start_row",  "start_col", "goal_row", "goal_col",
                                               "method", "cost_ratio", "feasible",  "preferred_share", "mhd_px",
                                               "impassable_px"};

// The header of the columns [0, columns).
std::string pairsHeader(std::size_t columns = kPairColumns.size()) {
  std::string header;
  for (std::size_t k = 0; k < columns; ++k) header += (header.empty() ? "" : ",") + kPairColumns[k];
  return header;
}
}  // namespace

void addClassLengths(const Region& region, const std::vector<std::vector<int>>& paths,
                     const std::vector<LabelClass>& classes, std::map<std::string, double>& lengths) {
  for (const LabelClass& c : classes) {
    std::vector<double> indicator(region.cell_labels.size());
    for (std::size_t s = 0; s < indicator.size(); ++s) indicator[s] = region.cell_labels[s] == c.index ? 1.0 : 0.0;
    double& length = lengths[c.name];
    for (const auto& path : paths) length += pathIntegral(path, region.cols(), indicator);
  }
}

std::map<int, std::pair<double, long>> classLogCostSums(const Region& region, const std::vector<double>& costs) {
  std::map<int, std::pair<double, long>> sums;
  const std::vector<std::uint8_t>& labels = region.cell_labels;
  for (std::size_t s = 0; s < labels.size() && s < costs.size(); ++s) {
    if (!std::isfinite(costs[s])) continue;
    auto& [sum, count] = sums[labels[s]];
    sum += std::log(costs[s]);
    ++count;
  }
  return sums;
}

std::vector<double> classMeanCosts(const Region& region, const std::vector<double>& learned) {
  const std::vector<std::uint8_t>& labels = region.cell_labels;
  if (labels.size() != learned.size()) {
    throw InvalidArgument("class means: region '" + region.spec.name + "' has " + std::to_string(labels.size()) +
                          " labelled cells and " + std::to_string(learned.size()) + " costs");
  }
  std::map<int, std::pair<double, long>> log_sums = classLogCostSums(region, learned);
  std::vector<double> out(learned.size());
  for (std::size_t s = 0; s < labels.size(); ++s) {
    const auto& [sum, count] = log_sums[labels[s]];
    out[s] = std::isfinite(learned[s]) ? std::exp(sum / static_cast<double>(count)) : learned[s];
  }
  return out;
}

const std::vector<Method>& methods() {
  static const std::vector<Method> all = {Method::Learned, Method::Uniform, Method::Classifier, Method::ClassMean};
  return all;
}

const std::vector<Method>& methodsByName() {
  static const std::vector<Method> all = {Method::ClassMean, Method::Classifier, Method::Learned, Method::Uniform};
  return all;
}

const char* methodName(Method method) {
  switch (method) {
    case Method::Learned: return "learned";
    case Method::Uniform: return "uniform";
    case Method::Classifier: return "classifier";
    case Method::ClassMean: return "class_mean";
  }
  return "?";
}

void addPairRecords(const std::string& region, int cols, const std::vector<std::vector<int>>& references,
                    const std::map<Method, std::vector<PlanScore>>& scores, std::vector<PairRecord>& out) {
  for (const Method method : methodsByName()) {
    if (scores.count(method) == 0) continue;
    const std::vector<PlanScore>& list = scores.at(method);
    if (list.size() != references.size()) {
      throw InvalidArgument("pair records: " + std::to_string(list.size()) + " " + methodName(method) + " scores for " +
                            std::to_string(references.size()) + " reference paths");
    }
    for (std::size_t k = 0; k < list.size(); ++k) {
      const int start = references[k].front(), goal = references[k].back();
      out.push_back({region, static_cast<int>(k), start / cols, start % cols, goal / cols, goal % cols, methodName(method),
                     list[k].cost_ratio, list[k].feasible, list[k].preferred_share, list[k].mhd_px,
                     list[k].impassable_px});
    }
  }
}

void writePairRecords(const std::string& path, const std::vector<PairRecord>& records) {
  std::ostringstream out;
  out << pairsHeader() << "\n";
  out.precision(17);
  for (const PairRecord& r : records) {
    out << r.region << ',' << r.pair << ',' << r.start_row << ',' << r.start_col << ',' << r.goal_row << ','
        << r.goal_col << ',' << r.method << ',' << r.cost_ratio << ',' << (r.feasible ? 1 : 0) << ','
        << r.preferred_share << ',' << r.mhd_px << ',' << r.impassable_px << "\n";
  }
  writeFileAtomically(path, out.str());
}

std::vector<PairRecord> readPairRecords(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DataError("cannot read '" + path + "'");
  std::string line;
  std::size_t columns = kPairColumns.size();
  std::getline(in, line);
  if (line == pairsHeader(columns - 2)) columns -= 2;       // written before mhd_px
  else if (line == pairsHeader(columns - 1)) columns -= 1;  // written before impassable_px
  else if (line != pairsHeader()) {
    throw DataError(path + ": line 1 must be the header '" + pairsHeader() + "' (a pairs.csv of mmp train)");
  }
  std::vector<PairRecord> records;
  for (int line_number = 2; std::getline(in, line); ++line_number) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream fields_in(line);
    for (std::string f; std::getline(fields_in, f, ',');) fields.push_back(f);
    const auto bad = [&](const std::string& what) {
      return DataError(path + ": line " + std::to_string(line_number) + ": " + what);
    };
    if (fields.size() != columns) {
      throw bad("expected " + std::to_string(columns) + " comma-separated fields, found " +
                std::to_string(fields.size()));
    }
    // Column k as a number that passes `valid`, or an error naming the column, the value and what is valid.
    const auto number = [&](std::size_t k, const char* what, auto valid) {
      std::size_t used = 0;
      double v = 0.0;
      try {
        v = std::stod(fields[k], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != fields[k].size() || !valid(v)) throw bad(kPairColumns[k] + " '" + fields[k] + "' is not " + what);
      return v;
    };
    const auto index = [&](std::size_t k) {
      return static_cast<int>(number(k, "an integer >= 0", [](double v) { return v >= 0 && v <= 1 << 30 && v == std::floor(v); }));
    };
    PairRecord r;
    r.region = fields[0];
    r.pair = index(1);
    r.start_row = index(2);
    r.start_col = index(3);
    r.goal_row = index(4);
    r.goal_col = index(5);
    r.method = fields[6];
    // A plan's cost over the optimal one: >= 1 up to rounding; never 0, negative, infinite or NaN.
    r.cost_ratio = number(7, "a finite number > 0", [](double v) { return v > 0 && std::isfinite(v); });
    r.feasible = number(8, "0 or 1", [](double v) { return v == 0 || v == 1; }) == 1;
    r.preferred_share = number(9, "a share in [0, 1]", [](double v) { return v >= 0 && v <= 1; });
    r.mhd_px = columns > 10 ? number(10, "a finite distance >= 0", [](double v) { return v >= 0 && std::isfinite(v); })
                            : std::numeric_limits<double>::quiet_NaN();
    r.impassable_px = columns > 11 ? number(11, "a finite length >= 0", [](double v) { return v >= 0 && std::isfinite(v); })
                                   : std::numeric_limits<double>::quiet_NaN();
    if (r.region.empty() || r.method.empty()) throw bad("the region and method names must not be empty");
    records.push_back(std::move(r));
  }
  return records;
}

MatchedPairs matchPairs(const std::vector<PairRecord>& a, const std::vector<PairRecord>& b, const std::string& method,
                        const std::string& name_a, const std::string& name_b) {
  using Key = std::pair<std::string, int>;  // region, pair
  const auto byPair = [&](const std::vector<PairRecord>& records, const std::string& name) {
    std::map<Key, const PairRecord*> out;
    for (const PairRecord& r : records) {
      if (r.method == method) out[{r.region, r.pair}] = &r;
    }
    if (out.empty()) {
      std::set<std::string> present;
      for (const PairRecord& r : records) present.insert(r.method);
      std::string list;
      for (const std::string& m : present) list += (list.empty() ? "" : ", ") + m;
      throw DataError(name + ": no pair scored for the method '" + method + "'; it has " +
                      (list.empty() ? std::string("none") : list) +
                      (method == methodName(Method::ClassMean) ? " (class_mean needs evaluation.class_mean: true)" : ""));
    }
    return out;
  };
  const std::map<Key, const PairRecord*> in_a = byPair(a, name_a), in_b = byPair(b, name_b);
  const std::string not_same = ": not the same pairs (the same images, cell size and evaluation settings are needed)";
  if (in_a.size() != in_b.size()) {
    throw DataError(name_a + " scored " + std::to_string(in_a.size()) + " pairs, " + name_b + " " +
                    std::to_string(in_b.size()) + not_same);
  }
  MatchedPairs matched;
  for (const auto& [key, ra] : in_a) {
    const auto found = in_b.find(key);
    const std::string which = "pair " + std::to_string(key.second) + " of region '" + key.first + "'";
    if (found == in_b.end()) throw DataError(name_b + " has no " + which + not_same);
    const PairRecord& rb = *found->second;
    if (ra->start_row != rb.start_row || ra->start_col != rb.start_col || ra->goal_row != rb.goal_row ||
        ra->goal_col != rb.goal_col) {
      throw DataError(which + " starts or ends at another cell in " + name_b + " than in " + name_a + not_same);
    }
    const auto score = [](const PairRecord& r) {
      PlanScore s;
      s.cost_ratio = r.cost_ratio;
      s.feasible = r.feasible;
      return s;
    };
    matched[key.first].first.push_back(score(*ra));
    matched[key.first].second.push_back(score(rb));
  }
  return matched;
}

}  // namespace mmp
