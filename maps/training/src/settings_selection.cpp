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

namespace mmp {

SelectionRule parseSelectionRule(const std::string& name) {
  if (name == "lowest") return SelectionRule::Lowest;
  if (name == "paired") return SelectionRule::Paired;
  throw InvalidArgument("select.rule: expected one of lowest, paired, got '" + name + "'");
}

std::string describe(SelectionRule rule) { return rule == SelectionRule::Lowest ? "lowest" : "paired"; }

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
  // then the size of the trees or the network.
  switch (s.learner.hypothesis) {
    case CostHypothesis::Learch:
      return {2, budgetPasses(s), s.learner.learch.from_linear ? 1 : 0, s.learner.learch.depth};
    case CostHypothesis::Network:
      return {3, budgetPasses(s), s.learner.network.from_linear ? 1 : 0,
              static_cast<long>(s.learner.network.shape.members) * s.learner.network.shape.channels};
    case CostHypothesis::Linear: break;
  }
  return {s.learner.costs == CostForm::Exponential ? 1 : 0, budgetPasses(s), 0, 0};
}

std::size_t pickCandidate(const std::vector<SelectionCandidate>& candidates, const std::vector<std::size_t>& among,
                          std::size_t current, SelectionRule rule) {
  const auto ok = [&](std::size_t i) { return std::isfinite(candidates[i].cost_ratio_mean); };
  const auto ahead = [&](std::size_t i, std::size_t j, bool by_simplicity) {  // i before j; ties keep j
    if (by_simplicity && candidates[i].simplicity != candidates[j].simplicity) {
      return candidates[i].simplicity < candidates[j].simplicity;
    }
    if (!by_simplicity && candidates[i].cost_ratio_mean != candidates[j].cost_ratio_mean) {
      return candidates[i].cost_ratio_mean < candidates[j].cost_ratio_mean;
    }
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
  // The paired rule: the default stays unless the lowest mean is better beyond noise on the same pairs.
  return comparePaired(candidates[lowest].pairs, candidates[simplest].pairs).low > 0.0 ? lowest : simplest;
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

  // The index of each assignment at rung `rung`, scoring the new ones first: their folds at once.
  std::vector<std::size_t> score(const std::vector<Values>& assignments, int rung) {
    std::vector<std::size_t> indices;
    std::vector<PipelineSettings> fresh;  // of candidates_[first_new ...]
    const std::size_t first_new = candidates_.size();
    for (const Values& values : assignments) {
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
        if (pool_.threads() > 1) s.threads = 1;  // a fold a thread
        if (space_.pairs_seed) s.evaluation.seed = *space_.pairs_seed;
        fresh.push_back(std::move(s));
      }
      indices.push_back(found);
    }
    runFolds(first_new, fresh);
    return indices;
  }

  const std::vector<SelectionCandidate>& candidates() const { return candidates_; }
  std::vector<SelectionCandidate> release() { return std::move(candidates_); }

 private:
  struct FoldResult {
    ValidationFold fold;
    std::string failure;
    double seconds = 0.0;
  };

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

  // Loads the training data of every fold that candidates_[first ...] (settings in `fresh`) need and
  // the cache lacks, on the pool; keeps only those.  Returns why a (data key, fold) failed to load.
  std::map<std::pair<Values, int>, std::string> loadMissingData(std::size_t first, const std::vector<PipelineSettings>& fresh) {
    if (fresh.empty()) return {};
    std::map<std::pair<Values, int>, std::size_t> needed;  // -> the first candidate (of fresh) that needs it
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      for (int f = 0; f < areas_; ++f) needed.emplace(std::make_pair(dataKey(candidates_[first + k].values), f), k);
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
      const std::size_t k = missing[m].second;
      const std::string& area = areas[static_cast<std::size_t>(key.second)];
      try {
        loaded[m] = std::make_shared<const FoldData>(loadFoldData(
            fresh[k], key.second,
            [&](const std::string& stage, long done, long total, const std::string&) { reportProgress(first + k, area, stage, done, total); }));
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

  // Trains and scores every fold of candidates_[first ...] (settings in `fresh`) on the pool; each
  // job fills its own slot, pooled in fold order afterwards.
  void runFolds(std::size_t first, const std::vector<PipelineSettings>& fresh) {
    const std::size_t folds = static_cast<std::size_t>(areas_);
    const std::map<std::pair<Values, int>, std::string> load_failures = loadMissingData(first, fresh);
    std::vector<FoldResult> results(fresh.size() * folds);
    pool_.parallelFor(results.size(), [&](std::size_t job) {
      const std::size_t k = job / folds;
      const int f = static_cast<int>(job % folds);
      FoldResult& r = results[job];
      const std::pair<Values, int> data_key(dataKey(candidates_[first + k].values), f);
      if (const auto failed = load_failures.find(data_key); failed != load_failures.end()) {
        r.failure = failed->second;
        return;
      }
      FoldProgress fold_progress;
      if (progress_) {
        fold_progress = [&](int, const std::string& area, const std::string& stage, long done, long total,
                            const std::string&) { reportProgress(first + k, area, stage, done, total); };
      }
      const auto start = std::chrono::steady_clock::now();
      try {
        r.fold = validateFold(fresh[k], f, fold_progress, data_.at(data_key).get());
      } catch (const ValidationFailure& e) {
        // A candidate that cannot be trained (e.g. costs that overflow) is out of the running; the
        // search goes on with the others.
        r.failure = e.what();
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      SelectionCandidate& c = candidates_[first + k];
      HoldoutReport pooled;
      for (std::size_t f = 0; f < folds; ++f) {
        const FoldResult& r = results[k * folds + f];
        c.seconds += r.seconds;
        if (!r.failure.empty() && c.failure.empty()) c.failure = r.failure;
        if (!r.failure.empty()) continue;
        c.area_cost_ratio[r.fold.area] = r.fold.report.summary(Method::Learned).cost_ratio_mean;
        pooled.add(r.fold.report);
      }
      if (!c.failure.empty()) {
        c.cost_ratio_mean = c.mhd_mean_px = std::numeric_limits<double>::infinity();
        c.feasible_share = 0.0;
        c.area_cost_ratio.clear();
        continue;
      }
      c.pairs = pooled.scores.at(Method::Learned);
      const MethodSummary m = summarise(c.pairs);
      c.cost_ratio_mean = m.cost_ratio_mean;
      c.feasible_share = m.feasible_share;
      c.mhd_mean_px = m.mhd_mean_px;
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

// Part 1 of the procedure: the coordinate search at rung 0; returns the index of its choice.
std::size_t coordinateSearch(Search& search, const SelectionSpace& space, Values current) {
  std::size_t chosen = search.score({current}, 0).front();
  for (int sweep = 0; sweep < space.sweeps; ++sweep) {
    for (const SelectionKey& key : space.keys) {
      if (!settingApplies(search.settingsFor(current, 0), key.name)) continue;  // its values would all train the same model
      std::vector<Values> assignments;
      for (const std::string& value : key.values) {
        assignments.push_back(current);
        assignments.back()[key.name] = value;
      }
      std::vector<std::size_t> among = search.score(assignments, 0);
      among.insert(among.begin(), chosen);
      const std::size_t pick = pickCandidate(search.candidates(), among, chosen, space.rule);
      if (pick != kNoCandidate) chosen = pick;
      current = search.candidates()[chosen].values;
    }
  }
  return chosen;
}

// `lead` first, then the others of `scored` that trained, by mean (stable).
std::vector<std::size_t> ranked(const std::vector<SelectionCandidate>& candidates, std::vector<std::size_t> scored,
                                std::size_t lead) {
  scored.erase(std::remove_if(scored.begin(), scored.end(), [&](std::size_t i) {
                 return i == lead || !std::isfinite(candidates[i].cost_ratio_mean);
               }), scored.end());
  std::stable_sort(scored.begin(), scored.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].cost_ratio_mean < candidates[b].cost_ratio_mean;
  });
  scored.insert(scored.begin(), lead);
  return scored;
}

// Parts 2 and 3: successive halving from the search's choice `chosen`, then the rule over the last
// candidates at every budget they were trained with.
std::size_t halve(Search& search, const SelectionSpace& space, std::size_t chosen) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < search.candidates().size(); ++i) order.push_back(i);
  std::vector<std::size_t> alive = ranked(search.candidates(), order, chosen);
  for (int rung = 1; rung < space.rungs; ++rung) {
    alive.resize((alive.size() + static_cast<std::size_t>(space.eta) - 1) / static_cast<std::size_t>(space.eta));
    std::vector<Values> assignments;
    for (const std::size_t i : alive) assignments.push_back(search.candidates()[i].values);
    const std::vector<std::size_t> scored = search.score(assignments, rung);
    const std::size_t pick = pickCandidate(search.candidates(), scored, scored.front(), space.rule);
    if (pick == kNoCandidate) break;  // none of them trains at this budget: keep the last rung's
    alive = ranked(search.candidates(), scored, pick);
  }
  // Early stopping: every budget of the last candidates; fewer passes are cheaper (simplicityKey).
  std::vector<std::size_t> last;
  const std::vector<SelectionCandidate>& all = search.candidates();
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (const std::size_t a : alive) {
      if (all[i].values == all[a].values) last.push_back(i);
    }
  }
  return pickCandidate(all, last, alive.front(), space.rule);
}

}  // namespace

SelectionResult selectSettings(const PipelineSettings& settings, const SelectionSpace& space,
                               const SelectionProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const Values first = checkedStartValues(settings, space);
  validationFold(settings, 0);  // refuses unusable settings before any training

  Search search(settings, space, progress);
  std::size_t chosen = coordinateSearch(search, space, first);
  if (space.rungs > 1 && std::isfinite(search.candidates()[chosen].cost_ratio_mean)) chosen = halve(search, space, chosen);
  if (!std::isfinite(search.candidates()[chosen].cost_ratio_mean)) {
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
