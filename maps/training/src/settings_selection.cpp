#include <mmp/maps/training/settings_selection.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>

namespace mmp {

SelectionRule parseSelectionRule(const std::string& name) {
  if (name == "lowest") return SelectionRule::Lowest;
  if (name == "paired") return SelectionRule::Paired;
  throw InvalidArgument("select.rule: expected one of lowest, paired, got '" + name + "'");
}

std::string describe(SelectionRule rule) { return rule == SelectionRule::Lowest ? "lowest" : "paired"; }

SelectionScore parseSelectionScore(const std::string& name) {
  if (name == "area_median") return SelectionScore::AreaMedian;
  if (name == "pooled") return SelectionScore::Pooled;
  throw InvalidArgument("select.score: expected one of pooled, area_median, got '" + name + "'");
}

std::string describe(SelectionScore score) { return score == SelectionScore::AreaMedian ? "area_median" : "pooled"; }

namespace {
// The median of `values` (the mean of the middle two for an even count); values not empty.
double median(std::vector<double> values) {
  const std::size_t m = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(m), values.end());
  if (values.size() % 2 == 1) return values[m];
  return (values[m] + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(m))) / 2.0;
}

// The median of the areas' means of ratios[drawn[k]]: area a holds the positions [begin_a, begin_a + sizes[a])
// of `drawn` (the pairs' own indices, or a resample of them within each area).
double areaMedian(const std::vector<double>& ratios, const std::vector<std::size_t>& sizes,
                  const std::vector<std::size_t>& drawn) {
  std::vector<double> means;
  std::size_t k = 0;
  for (const std::size_t n : sizes) {
    double sum = 0.0;
    for (const std::size_t end = k + n; k < end; ++k) sum += ratios[drawn[k]];
    means.push_back(sum / static_cast<double>(n));
  }
  return median(std::move(means));
}

std::vector<double> ratiosOf(const std::vector<PlanScore>& pairs) {
  std::vector<double> ratios;
  for (const PlanScore& p : pairs) ratios.push_back(p.cost_ratio);
  return ratios;
}

void checkGrouping(const std::vector<PlanScore>& pairs, const std::vector<std::size_t>& area_pairs) {
  std::size_t total = 0;
  for (const std::size_t n : area_pairs) total += n == 0 ? pairs.size() + 1 : n;  // an empty area is refused
  if (area_pairs.empty() || total != pairs.size()) {
    throw InvalidArgument("selection score: " + std::to_string(pairs.size()) + " pairs in " +
                          std::to_string(area_pairs.size()) + " areas do not add up (each area needs a pair)");
  }
}
}  // namespace

double selectionScore(const std::vector<PlanScore>& pairs, const std::vector<std::size_t>& area_pairs,
                      SelectionScore score) {
  checkGrouping(pairs, area_pairs);
  if (score == SelectionScore::Pooled) return summarise(pairs).cost_ratio_mean;
  std::vector<std::size_t> all(pairs.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return areaMedian(ratiosOf(pairs), area_pairs, all);
}

PairedComparison compareScores(const SelectionCandidate& a, const SelectionCandidate& b, SelectionScore score,
                               int resamples, std::uint64_t seed) {
  if (score == SelectionScore::Pooled) return comparePaired(a.pairs, b.pairs, resamples, seed);
  checkGrouping(a.pairs, a.area_pairs);
  if (a.area_pairs != b.area_pairs || a.pairs.size() != b.pairs.size() || resamples < 1) {
    throw InvalidArgument("selection score: the two candidates were not scored on the same pairs of the same areas");
  }
  const std::vector<double> ra = ratiosOf(a.pairs), rb = ratiosOf(b.pairs);
  std::vector<std::size_t> drawn(ra.size());
  std::iota(drawn.begin(), drawn.end(), std::size_t{0});
  PairedComparison c;
  c.pairs = static_cast<int>(ra.size());
  c.gain = areaMedian(rb, b.area_pairs, drawn) - areaMedian(ra, a.area_pairs, drawn);
  Random rng(seed);
  std::vector<double> gains(static_cast<std::size_t>(resamples));
  for (double& gain : gains) {
    std::size_t k = 0;  // one draw within every area, shared by both candidates
    for (const std::size_t n : a.area_pairs) {
      for (const std::size_t begin = k; k < begin + n; ++k) drawn[k] = begin + rng.below(n);
    }
    gain = areaMedian(rb, b.area_pairs, drawn) - areaMedian(ra, a.area_pairs, drawn);
  }
  c.low = percentile(gains, 0.025);
  c.high = percentile(gains, 0.975);
  return c;
}

bool settingApplies(const PipelineSettings& s, const std::string& key) {
  const bool learch = s.learner.hypothesis == CostHypothesis::Learch;
  const bool network = s.learner.hypothesis == CostHypothesis::Network;
  if (key.rfind("learner.learch.", 0) == 0) return learch;
  if (key.rfind("learner.network.", 0) == 0) return network;
  if (key == "learner.costs" || key == "learner.calibrate_bias") return !learch && !network;
  if (key == "learner.lambda" || key == "learner.passes") {
    return learch ? s.learner.learch.from_linear : network ? s.learner.network.from_linear : true;
  }
  return true;
}

long budgetPasses(const PipelineSettings& s) {
  switch (s.learner.hypothesis) {
    case CostHypothesis::Learch: return s.learner.learch.rounds;
    case CostHypothesis::Network: return s.learner.network.epochs;
    case CostHypothesis::Linear: break;
  }
  return s.learner.passes();
}

void setBudgetPasses(PipelineSettings& s, long passes) {
  const long full = budgetPasses(s);
  const bool learch = s.learner.hypothesis == CostHypothesis::Learch;
  if (s.learner.hypothesis == CostHypothesis::Linear) {
    s.learner.setPasses(passes);
    return;
  }
  if (learch ? s.learner.learch.from_linear : s.learner.network.from_linear) {
    const double share = static_cast<double>(passes) / static_cast<double>(full);
    s.learner.setPasses(std::max(1L, static_cast<long>(std::ceil(share * static_cast<double>(s.learner.passes())))));
  }
  (learch ? s.learner.learch.rounds : s.learner.network.epochs) = static_cast<int>(passes);
}

std::vector<long> simplicityKey(const PipelineSettings& s) {
  // linear costs < exponential costs < LEARCH < network; then the budget; then a linear start;
  // then the size of the trees or the network; then a cost exponent further from 1.
  const long exponent = std::lround(std::abs(std::log2(s.learner.cost_exponent)) * 1000.0);
  switch (s.learner.hypothesis) {
    case CostHypothesis::Learch:
      return {2, budgetPasses(s), s.learner.learch.from_linear ? 1 : 0, s.learner.learch.depth, exponent};
    case CostHypothesis::Network:
      return {3, budgetPasses(s), s.learner.network.from_linear ? 1 : 0,
              static_cast<long>(s.learner.network.shape.members) * s.learner.network.shape.channels, exponent};
    case CostHypothesis::Linear: break;
  }
  return {s.learner.costs == CostForm::Exponential ? 1 : 0, budgetPasses(s), 0, 0, exponent};
}

std::size_t pickCandidate(const std::vector<SelectionCandidate>& candidates, const std::vector<std::size_t>& among,
                          std::size_t current, SelectionRule rule, SelectionScore score) {
  const auto ok = [&](std::size_t i) { return std::isfinite(candidates[i].score); };
  const auto ahead = [&](std::size_t i, std::size_t j, bool by_simplicity) {  // i before j; ties keep j
    if (by_simplicity && candidates[i].simplicity != candidates[j].simplicity) {
      return candidates[i].simplicity < candidates[j].simplicity;
    }
    if (!by_simplicity && candidates[i].score != candidates[j].score) return candidates[i].score < candidates[j].score;
    return false;
  };
  std::size_t lowest = kNoCandidate, simplest = kNoCandidate;
  if (current != kNoCandidate && ok(current)) lowest = simplest = current;
  for (const std::size_t i : among) {
    if (!ok(i)) continue;
    if (lowest == kNoCandidate || ahead(i, lowest, false)) lowest = i;
    if (simplest == kNoCandidate || ahead(i, simplest, true)) simplest = i;
  }
  if (rule == SelectionRule::Lowest || lowest == simplest) return lowest;
  // The paired rule: the default stays unless the lowest score is better beyond noise on the same pairs.
  return compareScores(candidates[lowest], candidates[simplest], score).low > 0.0 ? lowest : simplest;
}

namespace {

using Values = std::map<std::string, std::string>;

// Refuses a search space that names a key twice, an unknown key or an unusable value; returns each
// key's first value, where the search starts.
Values checkedStartValues(const PipelineSettings& settings, const SelectionSpace& space) {
  if (space.keys.empty()) throw InvalidArgument("select: the search space names no key");
  if (space.sweeps < 1) throw InvalidArgument("select.sweeps: must be >= 1, got " + std::to_string(space.sweeps));
  if (space.rungs < 1) throw InvalidArgument("select.rungs: must be >= 1, got " + std::to_string(space.rungs));
  if (space.eta < 1) throw InvalidArgument("select.eta: must be >= 1, got " + std::to_string(space.eta));
  if (space.threads < 0) throw InvalidArgument("select.threads: must be >= 0 (0: all cores), got " + std::to_string(space.threads));
  if (space.pairs && *space.pairs < 1) throw InvalidArgument("select.pairs: must be >= 1, got " + std::to_string(*space.pairs));
  Values current;
  for (const SelectionKey& key : space.keys) {
    if (current.count(key.name) != 0) throw InvalidArgument("select: " + key.name + " is given twice");
    if (key.values.empty()) throw InvalidArgument("select: " + key.name + ": list at least one value");
    const SettingKey* k = findSettingKey(key.name);
    if (k == nullptr || !k->selectable) {
      std::string known;
      for (const SettingKey& s : settingKeys()) known += s.selectable ? (known.empty() ? "" : ", ") + s.key : "";
      throw InvalidArgument("select: unknown key '" + key.name + "'; the search space may name " + known);
    }
    for (const std::string& value : key.values) {
      PipelineSettings check = settings;
      try {
        applySetting(check, key.name, value);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("select: ") + e.what());
      }
    }
    current[key.name] = key.values.front();
  }
  return current;
}

bool afterTraining(const std::string& key) {
  const SettingKey* k = findSettingKey(key);
  return k != nullptr && k->after_training;
}

// An assignment without its after-training keys: what its training depends on.
Values trainingValues(const Values& values) {
  Values training;
  for (const auto& [name, value] : values) {
    if (!afterTraining(name)) training[name] = value;
  }
  return training;
}

// The search's state: every candidate scored, and how to score more on all threads at once.
class Search {
 public:
  Search(const PipelineSettings& settings, const SelectionSpace& space, const SelectionProgress& progress)
      : settings_(settings), space_(space), progress_(progress), pool_(space.threads),
        areas_(static_cast<int>(trainingAreas(settings).size())) {}

  // The settings of an assignment at rung `rung`'s budget.
  PipelineSettings settingsFor(const Values& values, int rung) const {
    PipelineSettings s = settings_;
    for (const SelectionKey& key : space_.keys) applySetting(s, key.name, values.at(key.name));
    long factor = 1;
    for (int r = rung; r < space_.rungs - 1; ++r) factor *= space_.eta;
    setBudgetPasses(s, std::max(1L, (budgetPasses(s) + factor - 1) / factor));
    validate(s);
    return s;
  }

  // The index of each assignment at rung `rung`, each with every combination of the after-training
  // keys' values (in the space's order; once each), scoring the new ones first: their folds at once,
  // one training for the variants of an assignment.
  std::vector<std::size_t> score(const std::vector<Values>& assignments, int rung) {
    std::vector<std::size_t> indices;
    std::vector<Job> fresh;
    for (const Values& assignment : assignments) {
      for (const Values& values : variants(assignment)) {
        PipelineSettings s = settingsFor(values, rung);
        const long passes = budgetPasses(s);
        std::size_t found = kNoCandidate;
        for (std::size_t i = 0; i < candidates_.size() && found == kNoCandidate; ++i) {
          if (candidates_[i].values == values && candidates_[i].passes == passes) found = i;
        }
        if (found == kNoCandidate) {
          SelectionCandidate c;
          c.values = values;
          c.passes = passes;
          c.rung = rung;
          c.simplicity = simplicityKey(s);
          found = candidates_.size();
          candidates_.push_back(std::move(c));
          s.classifier.enabled = false;  // the score reads the learned planner's plans only
          s.evaluation.class_mean = false;
          if (pool_.threads() > 1) s.threads = 1;  // a fold a thread
          if (space_.pairs_seed) s.evaluation.seed = *space_.pairs_seed;
          if (space_.pairs) s.evaluation.pairs = *space_.pairs;
          const Values training = trainingValues(values);
          auto job = std::find_if(fresh.begin(), fresh.end(), [&](const Job& j) {
            return j.passes == passes && trainingValues(candidates_[j.candidates.front()].values) == training;
          });
          if (job == fresh.end()) job = fresh.insert(fresh.end(), Job{passes, {}, {}});
          job->candidates.push_back(found);
          job->settings.push_back(std::move(s));
        }
        if (std::find(indices.begin(), indices.end(), found) == indices.end()) indices.push_back(found);
      }
    }
    runFolds(fresh);
    return indices;
  }

  const std::vector<SelectionCandidate>& candidates() const { return candidates_; }
  std::vector<SelectionCandidate> release() { return std::move(candidates_); }

 private:
  // Candidates that differ only in after-training keys, trained once a fold.
  struct Job {
    long passes = 0;
    std::vector<std::size_t> candidates;
    std::vector<PipelineSettings> settings;  ///< of each candidate
  };
  struct FoldResult {
    std::vector<VariantFold> variants;  ///< of each candidate of the job
    std::string failure;                ///< why the fold's loading or training failed, for all of them
    double seconds = 0.0;               ///< until it failed
  };

  // `assignment` with each combination of the after-training keys' values, the first key's slowest.
  std::vector<Values> variants(const Values& assignment) const {
    std::vector<Values> all = {assignment};
    for (const SelectionKey& key : space_.keys) {
      if (!afterTraining(key.name)) continue;
      std::vector<Values> more;
      for (const Values& v : all) {
        for (const std::string& value : key.values) {
          more.push_back(v);
          more.back()[key.name] = value;
        }
      }
      all = std::move(more);
    }
    return all;
  }

  // The values that change what a fold loads: the keys outside learner.* and loss.* (features,
  // demonstrations); candidates that agree on them share each fold's training data.
  static Values dataKey(const Values& values) {
    Values key;
    for (const auto& [name, value] : values) {
      if (name.rfind("learner.", 0) != 0 && name.rfind("loss.", 0) != 0) key[name] = value;
    }
    return key;
  }

  void reportProgress(std::size_t candidate, const std::string& area, const std::string& stage, long done, long total) {
    if (!progress_) return;
    const std::lock_guard<std::mutex> lock(progress_mutex_);
    progress_(static_cast<int>(candidate) + 1, candidates_[candidate].values, area, stage, done, total);
  }

  // Loads the training data of every fold that the jobs need and the cache lacks, on the pool; keeps
  // only those.  Returns why a (data key, fold) failed to load.
  std::map<std::pair<Values, int>, std::string> loadMissingData(const std::vector<Job>& jobs) {
    if (jobs.empty()) return {};
    std::map<std::pair<Values, int>, std::size_t> needed;  // -> the first job that needs it
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      for (int f = 0; f < areas_; ++f) needed.emplace(std::make_pair(dataKey(candidates_[jobs[k].candidates.front()].values), f), k);
    }
    for (auto it = data_.begin(); it != data_.end();) it = needed.count(it->first) != 0 ? std::next(it) : data_.erase(it);
    std::vector<std::pair<std::pair<Values, int>, std::size_t>> missing;
    for (const auto& entry : needed) {
      if (data_.count(entry.first) == 0) missing.push_back(entry);
    }
    std::vector<std::shared_ptr<const FoldData>> loaded(missing.size());
    std::vector<std::string> failures(missing.size());
    const std::vector<std::string> areas = trainingAreas(settings_);
    pool_.parallelFor(missing.size(), [&](std::size_t m) {
      const auto& key = missing[m].first;  // not a structured binding: Clang 14 cannot capture one in a lambda
      const Job& job = jobs[missing[m].second];
      const std::string& area = areas[static_cast<std::size_t>(key.second)];
      try {
        loaded[m] = std::make_shared<const FoldData>(loadFoldData(
            job.settings.front(), key.second,
            [&](const std::string& stage, long done, long total, const std::string&) {
              reportProgress(job.candidates.front(), area, stage, done, total);
            }));
      } catch (const Error& e) {
        failures[m] = ValidationFailure(area, e.what()).what();
      }
    });
    std::map<std::pair<Values, int>, std::string> failed;
    for (std::size_t m = 0; m < missing.size(); ++m) {
      if (loaded[m]) {
        data_[missing[m].first] = loaded[m];
      } else {
        failed[missing[m].first] = failures[m];
      }
    }
    return failed;
  }

  // Trains and scores every fold of every job on the pool; each (job, fold) fills its own slot,
  // pooled in fold order afterwards.
  void runFolds(const std::vector<Job>& jobs) {
    const std::size_t folds = static_cast<std::size_t>(areas_);
    const std::map<std::pair<Values, int>, std::string> load_failures = loadMissingData(jobs);
    std::vector<FoldResult> results(jobs.size() * folds);
    pool_.parallelFor(results.size(), [&](std::size_t slot) {
      const Job& job = jobs[slot / folds];
      const int f = static_cast<int>(slot % folds);
      FoldResult& r = results[slot];
      const std::pair<Values, int> data_key(dataKey(candidates_[job.candidates.front()].values), f);
      if (const auto failed = load_failures.find(data_key); failed != load_failures.end()) {
        r.failure = failed->second;
        return;
      }
      FoldProgress fold_progress;
      if (progress_) {
        fold_progress = [&](int, const std::string& area, const std::string& stage, long done, long total,
                            const std::string&) { reportProgress(job.candidates.front(), area, stage, done, total); };
      }
      const auto start = std::chrono::steady_clock::now();
      try {
        r.variants = validateFoldVariants(job.settings, f, fold_progress, data_.at(data_key).get());
      } catch (const ValidationFailure& e) {
        // A candidate that cannot be trained (e.g. costs that overflow) is out of the running; the
        // search goes on with the others.
        r.failure = e.what();
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    });
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      for (std::size_t v = 0; v < jobs[j].candidates.size(); ++v) {
        SelectionCandidate& c = candidates_[jobs[j].candidates[v]];
        HoldoutReport pooled;
        for (std::size_t f = 0; f < folds; ++f) {
          const FoldResult& r = results[j * folds + f];
          std::string failure = r.failure;
          if (failure.empty()) {
            const VariantFold& variant = r.variants[v];
            c.seconds += variant.seconds;
            if (!variant.failure.empty()) failure = ValidationFailure(variant.fold.area, variant.failure).what();
          } else if (v == 0) {
            c.seconds += r.seconds;
          }
          if (!failure.empty() && c.failure.empty()) c.failure = failure;
          if (!failure.empty()) continue;
          const HoldoutReport& fold = r.variants[v].fold.report;
          c.area_cost_ratio[r.variants[v].fold.area] = fold.summary(Method::Learned).cost_ratio_mean;
          c.area_pairs.push_back(fold.scores.at(Method::Learned).size());
          pooled.add(fold);
        }
        if (!c.failure.empty()) {
          c.score = c.cost_ratio_mean = c.mhd_mean_px = std::numeric_limits<double>::infinity();
          c.feasible_share = 0.0;
          c.area_cost_ratio.clear();
          c.area_pairs.clear();
          continue;
        }
        c.pairs = pooled.scores.at(Method::Learned);
        const MethodSummary m = summarise(c.pairs);
        c.score = selectionScore(c.pairs, c.area_pairs, space_.score);
        c.cost_ratio_mean = m.cost_ratio_mean;
        c.feasible_share = m.feasible_share;
        c.mhd_mean_px = m.mhd_mean_px;
      }
    }
  }

  const PipelineSettings& settings_;
  const SelectionSpace& space_;
  const SelectionProgress& progress_;
  ThreadPool pool_;
  int areas_ = 0;
  std::vector<SelectionCandidate> candidates_;
  std::map<std::pair<Values, int>, std::shared_ptr<const FoldData>> data_;  ///< by data key and fold
  std::mutex progress_mutex_;
};

// Part 1 of the procedure: the coordinate search at rung 0 over the keys that need training (the
// after-training keys' values are scored on every trained assignment and picked among at each step);
// returns the index of its choice.
std::size_t coordinateSearch(Search& search, const SelectionSpace& space, Values current) {
  const std::vector<std::size_t> start = search.score({current}, 0);
  std::size_t chosen = pickCandidate(search.candidates(), start, start.front(), space.rule, space.score);
  if (chosen == kNoCandidate) return start.front();  // nothing trains: the caller says so
  current = search.candidates()[chosen].values;
  for (int sweep = 0; sweep < space.sweeps; ++sweep) {
    for (const SelectionKey& key : space.keys) {
      if (afterTraining(key.name)) continue;
      if (!settingApplies(search.settingsFor(current, 0), key.name)) continue;  // its values would all train the same model
      std::vector<Values> assignments = {current};  // the current choice's variants, scored already
      for (const std::string& value : key.values) {
        assignments.push_back(current);
        assignments.back()[key.name] = value;
      }
      const std::vector<std::size_t> among = search.score(assignments, 0);
      const std::size_t pick = pickCandidate(search.candidates(), among, chosen, space.rule, space.score);
      if (pick != kNoCandidate) chosen = pick;
      current = search.candidates()[chosen].values;
    }
  }
  return chosen;
}

// `lead` first, then the others of `scored` that trained, by score (stable).
std::vector<std::size_t> ranked(const std::vector<SelectionCandidate>& candidates, std::vector<std::size_t> scored,
                                std::size_t lead) {
  scored.erase(std::remove_if(scored.begin(), scored.end(), [&](std::size_t i) {
                 return i == lead || !std::isfinite(candidates[i].score);
               }), scored.end());
  std::stable_sort(scored.begin(), scored.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].score < candidates[b].score;
  });
  scored.insert(scored.begin(), lead);
  return scored;
}

// Parts 2 and 3: successive halving from the search's choice `chosen`, then the rule over the last
// candidates at every budget they were trained with.  What goes on is a share of the trained
// assignments (their training values), each scored again with every after-training value.
std::size_t halve(Search& search, const SelectionSpace& space, std::size_t chosen) {
  const std::vector<SelectionCandidate>& all = search.candidates();  // grows as the search scores
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < all.size(); ++i) order.push_back(i);
  std::vector<std::size_t> alive = ranked(all, order, chosen);
  for (int rung = 1; rung < space.rungs; ++rung) {
    std::vector<Values> trainings;
    for (const std::size_t i : alive) {
      const Values training = trainingValues(all[i].values);
      if (std::none_of(trainings.begin(), trainings.end(), [&](const Values& t) { return trainingValues(t) == training; })) {
        trainings.push_back(all[i].values);
      }
    }
    trainings.resize((trainings.size() + static_cast<std::size_t>(space.eta) - 1) / static_cast<std::size_t>(space.eta));
    const std::vector<std::size_t> scored = search.score(trainings, rung);
    const auto current = std::find_if(scored.begin(), scored.end(), [&](std::size_t i) { return all[i].values == all[alive.front()].values; });
    const std::size_t pick = pickCandidate(all, scored, current == scored.end() ? scored.front() : *current, space.rule,
                                             space.score);
    if (pick == kNoCandidate) break;  // none of them trains at this budget: keep the last rung's
    alive = ranked(all, scored, pick);
  }
  // Early stopping: every budget (and after-training value) of the last candidates; fewer passes
  // are cheaper (simplicityKey).
  std::vector<std::size_t> last;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Values training = trainingValues(all[i].values);
    if (std::any_of(alive.begin(), alive.end(), [&](std::size_t a) { return trainingValues(all[a].values) == training; })) {
      last.push_back(i);
    }
  }
  return pickCandidate(all, last, alive.front(), space.rule, space.score);
}

}  // namespace

SelectionResult selectSettings(const PipelineSettings& settings, const SelectionSpace& space,
                               const SelectionProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const Values first = checkedStartValues(settings, space);
  validationFold(settings, 0);  // refuses unusable settings before any training

  Search search(settings, space, progress);
  std::size_t chosen = coordinateSearch(search, space, first);
  if (space.rungs > 1 && std::isfinite(search.candidates()[chosen].score)) chosen = halve(search, space, chosen);
  if (!std::isfinite(search.candidates()[chosen].score)) {
    throw InvalidArgument("select: no candidate could be trained; the first: " + search.candidates().front().failure);
  }
  SelectionResult result;
  result.settings = search.settingsFor(search.candidates()[chosen].values, search.candidates()[chosen].rung);
  result.candidates = search.release();
  result.chosen = chosen;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace mmp
