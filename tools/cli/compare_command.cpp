// `mmp compare A B`: two runs of `mmp train` (or of `mmp train --validate`) scored on the same
// start/goal pairs, compared pair by pair.  Two settings' mean cost ratios differ by less than the
// spread of the pairs more often than not; the paired bootstrap says whether a difference could be
// chance.
#include "commands.hpp"
#include <mmp/frontend/json_output.hpp>

#include <mmp/maps/training/evaluation.hpp>

#include <mmp/core/error.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

namespace mmp::tools {
namespace {

struct CompareOptions {
  std::string a, b;
  std::string method = "learned";
};

// A run's pair records: the file itself, or pairs.csv (else validation_pairs.csv) in a folder.
std::vector<PairRecord> loadRun(const std::string& where) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(where, error)) return readPairRecords(where);
  for (const char* name : {"pairs.csv", "validation_pairs.csv"}) {
    if (fs::exists(fs::path(where) / name, error)) return readPairRecords((fs::path(where) / name).string());
  }
  throw DataError("'" + where + "' holds neither pairs.csv (mmp train) nor validation_pairs.csv (mmp train --validate)");
}

// The behaviour a run scored (metrics.json or validation.json in its folder, or beside its pairs
// file); "" if neither is there or names one.
std::string runBehaviour(const std::string& where) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path folder = fs::is_directory(where, error) ? fs::path(where) : fs::path(where).parent_path();
  for (const char* name : {"metrics.json", "validation.json"}) {
    std::ifstream in(folder / name);
    if (!in) continue;
    const Json json = Json::parse(in, nullptr, false);
    if (json.is_object() && json.contains("behaviour") && json["behaviour"].is_string()) return json["behaviour"];
  }
  return {};
}

// Runs of different behaviours share their start/goal pairs but not what a pair's cost ratio means.
void checkSameBehaviour(const CompareOptions& options) {
  const std::string a = runBehaviour(options.a), b = runBehaviour(options.b);
  if (!a.empty() && !b.empty() && a != b) {
    throw DataError("A (" + options.a + ") scored behaviour '" + a + "' and B (" + options.b + ") behaviour '" + b +
                    "': their cost ratios are against different reference paths and costs, so no comparison of the "
                    "two means anything; compare runs of one behaviour");
  }
  for (const auto& [run, behaviour] : {std::pair{options.a, a}, std::pair{options.b, b}}) {
    if (behaviour.empty()) {
      std::fprintf(stderr, "warning: no metrics.json or validation.json with the behaviour beside '%s': that both runs "
                           "scored the same behaviour is not checked\n", run.c_str());
    }
  }
}

void printRow(const std::string& name, const std::vector<PlanScore>& a, const std::vector<PlanScore>& b) {
  const MethodSummary sa = summarise(a), sb = summarise(b);
  const PairedComparison c = comparePaired(b, a);
  std::printf("%-24s %6zu %8.3f %8.3f %11.2f %11.2f %11.3f  [%.3f, %.3f]%s\n", name.c_str(), a.size(), sa.cost_ratio_mean,
              sb.cost_ratio_mean, sa.feasible_share, sb.feasible_share, c.gain, c.low, c.high,
              (verdict(c) == std::string("could be chance") ? "  could be chance" : "  B " + std::string(verdict(c))).c_str());
}

void runCompare(const CompareOptions& options) {
  checkSameBehaviour(options);
  const MatchedPairs regions = matchPairs(loadRun(options.a), loadRun(options.b), options.method, options.a, options.b);
  std::printf("mmp compare: method '%s', A = %s, B = %s\n", options.method.c_str(), options.a.c_str(),
              options.b.c_str());
  std::printf("%-24s %6s %8s %8s %11s %11s %11s  %s\n", "region", "pairs", "A mean", "B mean", "A feasible",
              "B feasible", "B lower by", "95 % paired-bootstrap interval");
  std::vector<PlanScore> all_a, all_b;
  for (const auto& [region, lists] : regions) {
    printRow(region, lists.first, lists.second);
    all_a.insert(all_a.end(), lists.first.begin(), lists.first.end());
    all_b.insert(all_b.end(), lists.second.begin(), lists.second.end());
  }
  printRow("all", all_a, all_b);
}

}  // namespace

void addCompareCommand(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare two runs of mmp train (or of --validate) pair by pair: mean cost ratios and a paired-bootstrap "
                 "interval of the difference");
  cmd->add_option("a", options->a, "run A: its output folder or pairs file")->required();
  cmd->add_option("b", options->b, "run B: its output folder or pairs file")->required();
  cmd->add_option("--method", options->method, "the method compared in both runs (learned, uniform, classifier or, with evaluation.class_mean, class_mean)");
  cmd->footer("Examples:\n  mmp compare out/follow_road out/follow_road_other_seed\n  mmp compare a/pairs.csv b/pairs.csv --method uniform");
  cmd->callback([options] { runCompare(*options); });
}

}  // namespace mmp::tools
