// Scoring plans on a holdout region against reference paths that are optimal under the behaviour.
//
// For each start/goal pair, with y_ref the reference (A* on the behaviour's true costs) and y a
// method's plan (A* on that method's cost map):
//   cost ratio       = true cost of y / true cost of y_ref  (>= 1, 1 is perfect); a plan through an
//                      impassable cell is charged impassable_cost there (and counted as infeasible)
//   distance         = for every cell of y, the Euclidean distance in pixels to the nearest cell of y_ref
//   MHD              = the modified Hausdorff distance (Dubuisson and Jain 1994) between y and y_ref in
//                      pixels: max(mean over y of the distance to y_ref, mean over y_ref of the distance
//                      to y), cells of both taken as points; 0 when the plan is the reference
//   preferred share  = the share of y's length on the behaviour's preferred class
// summarise() pools the pairs: mean and 95th percentile of the ratios, mean and 95th percentile of
// all plan cells' distances, mean and 95th percentile of the MHDs, mean preferred share, share of
// feasible plans.
#pragma once

#include <mmp/maps/training/regions.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mmp {

/// The compared methods, in report order: the learned cost map, uniform costs, the per-pixel classifier,
/// and (evaluation.class_mean, a diagnostic that reads the labels) the learned costs averaged over each
/// true class: the learned map as it would be if it recognised every cell's class.
enum class Method { Learned, Uniform, Classifier, ClassMean };
/// Every method, in report order.
const std::vector<Method>& methods();
/// Every method, in the alphabetical order of its name (the order of pairs.csv and metrics.json).
const std::vector<Method>& methodsByName();
/// "learned", "uniform", "classifier", "class_mean": the names in pairs.csv, metrics.json and `mmp compare --method`.
const char* methodName(Method method);

struct PlanScore {
  double cost_ratio = 1.0;
  double preferred_share = 0.0;
  std::vector<double> distances_px;
  double mhd_px = 0.0;  ///< modified Hausdorff distance to the reference
  bool feasible = true;
  double impassable_px = 0.0;  ///< length of the plan on impassable cells (pixels; 0 when feasible)
};

struct MethodSummary {
  int pairs = 0;
  double cost_ratio_mean = 0.0, cost_ratio_p95 = 0.0;
  double dist_mean_px = 0.0, dist_p95_px = 0.0;
  double mhd_mean_px = 0.0, mhd_p95_px = 0.0;
  double preferred_share = 0.0;
  double feasible_share = 0.0;
};

/// The q-quantile (0 <= q <= 1) by the nearest-rank rule; 0 for an empty list.
double percentile(std::vector<double> values, double q);

/// What scoring needs of a holdout region and one reference path.
class PlanScorer {
 public:
  /// requires: region has labels (true_costs); impassable_cost > 0.
  PlanScorer(const Region& region, int preferred, double impassable_cost, int cell_size);

  /// Sets the reference path (optimal under the true costs) and precomputes its distance map.
  void setReference(const std::vector<int>& reference);
  PlanScore score(const std::vector<int>& plan) const;

 private:
  const Region& region_;
  int cell_size_;
  std::vector<double> scoring_costs_;   // true costs, +inf replaced by impassable_cost
  std::vector<double> on_preferred_;    // 1 on preferred cells, else 0
  std::vector<double> on_impassable_;   // 1 on impassable cells, else 0
  std::vector<int> reference_;
  double reference_cost_ = 0.0;
  std::vector<double> distance_;        // cells to the reference
};

/// Per true class of the region's cells (index): the sum of log(costs) over its cells with a finite cost,
/// and how many there are; cells past the end of either list count in none.  requires: region has labels.
std::map<int, std::pair<double, long>> classLogCostSums(const Region& region, const std::vector<double>& costs);

/// The class_mean map: each cell the geometric mean of `learned` over the cells of its true class on this
/// region (cells with an infinite learned cost, no data, keep it and count in no mean).
/// requires: region has labels; learned.size() == region.cells().
std::vector<double> classMeanCosts(const Region& region, const std::vector<double>& learned);

MethodSummary summarise(const std::vector<PlanScore>& scores);

/// Adds the length of the paths on each class to lengths[class name] (summed over the paths, the
/// trapezoid rule as for costs).  requires: region has labels.
void addClassLengths(const Region& region, const std::vector<std::vector<int>>& paths,
                     const std::vector<LabelClass>& classes, std::map<std::string, double>& lengths);

/// How much lower one method's mean cost ratio is than another's on the same pairs, with a 95 %
/// percentile interval from a paired bootstrap (pairs resampled with replacement by mmp::Random, so a
/// seed gives the same interval with every standard library): an interval that contains 0 says the
/// difference could be chance.
struct PairedComparison {
  int pairs = 0;
  double gain = 0.0;               ///< mean over pairs of (other's ratio - this method's ratio)
  double low = 0.0, high = 0.0;    ///< 2.5 % and 97.5 % points of the bootstrap means
};

/// "better" if the interval lies wholly above 0 (the method's ratios are lower), "worse" if wholly
/// below, else "could be chance".
const char* verdict(const PairedComparison& comparison);

/// requires: the same pairs in the same order in both (throws mmp::InvalidArgument otherwise).
PairedComparison comparePaired(const std::vector<PlanScore>& method, const std::vector<PlanScore>& other,
                               int resamples = 10000, std::uint64_t seed = 1);
/// The same on any paired figure where lower is better (a loss, a cost ratio): the mean of other[k] -
/// method[k] and its 95 % paired-bootstrap interval.
PairedComparison comparePairedValues(const std::vector<double>& method, const std::vector<double>& other,
                                     int resamples = 10000, std::uint64_t seed = 1);

/// One scored plan: which region and pair, where it starts and ends (cells), by which method.
struct PairRecord {
  std::string region;
  int pair = 0;
  int start_row = 0, start_col = 0, goal_row = 0, goal_col = 0;
  std::string method;
  double cost_ratio = 1.0;
  bool feasible = true;
  double preferred_share = 0.0;
  double mhd_px = 0.0;  ///< NaN when read from a pairs.csv written before the column existed
  double impassable_px = 0.0;  ///< NaN when read from a pairs.csv written before the column existed
};

/// The records of one region's pairs: scores[method][k] is pair k, whose reference is references[k];
/// the methods in the alphabetical order of their names.
void addPairRecords(const std::string& region, int cols, const std::vector<std::vector<int>>& references,
                    const std::map<Method, std::vector<PlanScore>>& scores, std::vector<PairRecord>& out);

/// pairs.csv: a header, then one line per record (`mmp compare` reads it back).
void writePairRecords(const std::string& path, const std::vector<PairRecord>& records);

/// Reads a file writePairRecords wrote (or one without its last column, impassable_px, or its last two); throws mmp::DataError naming the file and line of what is wrong.
std::vector<PairRecord> readPairRecords(const std::string& path);

/// Per region, run A's and run B's scores of one method, in the same pair order.
using MatchedPairs = std::map<std::string, std::pair<std::vector<PlanScore>, std::vector<PlanScore>>>;

/// Matches two runs' records of `method` pair by pair (only cost_ratio and feasible are filled in).  Throws
/// mmp::DataError, naming the runs by name_a / name_b, if either scored no pair of that method or the two
/// did not score the same pairs: another set of (region, pair), or another start or goal cell.
MatchedPairs matchPairs(const std::vector<PairRecord>& a, const std::vector<PairRecord>& b, const std::string& method,
                        const std::string& name_a, const std::string& name_b);

}  // namespace mmp
