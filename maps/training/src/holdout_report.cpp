#include <mmp/maps/training/holdout_report.hpp>

#include <mmp/core/error.hpp>

#include <chrono>
#include <cmath>
#include <optional>

namespace mmp {

void HoldoutReport::add(const HoldoutResult& holdout, const std::vector<LabelClass>& classes) {
  const std::string& name = holdout.region.spec.name;
  regions.push_back(name);
  for (const auto& [method, list] : holdout.scores) {
    scores[method].insert(scores[method].end(), list.begin(), list.end());
    region_summaries[name][method] = summarise(list);
  }
  addPairRecords(name, holdout.region.cols(), holdout.references, holdout.scores, records);
  addClassLengths(holdout.region, holdout.plans.at(Method::Learned), classes, learned_lengths);
  addClassLengths(holdout.region, holdout.references, classes, reference_lengths);
  const std::map<int, std::pair<double, long>> sums = classLogCostSums(holdout.region, holdout.learned_costs);
  for (const LabelClass& c : classes) {
    auto& [sum, count] = learned_log_costs[c.name];
    if (const auto found = sums.find(c.index); found != sums.end()) {
      sum += found->second.first;
      count += found->second.second;
    }
  }
  region_reference_preferred_share[name] = holdout.reference_preferred_share;
  const int n = static_cast<int>(holdout.references.size());
  pairs += n;
  reference_preferred_sum += holdout.reference_preferred_share * n;
}

void HoldoutReport::add(const HoldoutReport& other) {
  for (const auto& [method, list] : other.scores) scores[method].insert(scores[method].end(), list.begin(), list.end());
  records.insert(records.end(), other.records.begin(), other.records.end());
  regions.insert(regions.end(), other.regions.begin(), other.regions.end());
  for (const auto& [name, summaries] : other.region_summaries) region_summaries[name] = summaries;
  for (const auto& [name, share] : other.region_reference_preferred_share) region_reference_preferred_share[name] = share;
  for (const auto& [name, length] : other.learned_lengths) learned_lengths[name] += length;
  for (const auto& [name, length] : other.reference_lengths) reference_lengths[name] += length;
  for (const auto& [name, sum_count] : other.learned_log_costs) {
    learned_log_costs[name].first += sum_count.first;
    learned_log_costs[name].second += sum_count.second;
  }
  pairs += other.pairs;
  reference_preferred_sum += other.reference_preferred_sum;
}

std::map<std::string, double> HoldoutReport::learnedClassCosts(const std::string& preferred) const {
  std::map<std::string, double> out;
  const auto p = learned_log_costs.find(preferred);
  if (p == learned_log_costs.end() || p->second.second == 0) return out;
  const double preferred_mean = p->second.first / static_cast<double>(p->second.second);
  for (const auto& [name, sum_count] : learned_log_costs) {
    if (sum_count.second > 0) out[name] = std::exp(sum_count.first / static_cast<double>(sum_count.second) - preferred_mean);
  }
  return out;
}

std::vector<Method> HoldoutReport::methodsScored() const {
  std::vector<Method> scored;
  for (const Method m : methods()) {
    if (scores.count(m) != 0) scored.push_back(m);
  }
  return scored;
}

MethodSummary HoldoutReport::summary(Method method) const {
  if (scores.count(method) == 0) throw InvalidArgument(std::string("holdout report: no ") + methodName(method) + " scores");
  return summarise(scores.at(method));
}

PairedComparison HoldoutReport::learnedVersus(Method baseline) const {
  if (scores.count(Method::Learned) == 0 || scores.count(baseline) == 0) {
    throw InvalidArgument(std::string("holdout report: learned or ") + methodName(baseline) + " scores missing");
  }
  return comparePaired(scores.at(Method::Learned), scores.at(baseline));
}

std::map<std::string, double> HoldoutReport::shares(const std::map<std::string, double>& lengths,
                                                    const std::vector<LabelClass>& classes) {
  double total = 0.0;
  for (const auto& [name, length] : lengths) total += length;
  std::map<std::string, double> out;
  for (const LabelClass& c : classes) {
    const auto it = lengths.find(c.name);
    out[c.name] = total > 0.0 && it != lengths.end() ? it->second / total : 0.0;
  }
  return out;
}

double HoldoutReport::referencePreferredShare() const { return pairs > 0 ? reference_preferred_sum / pairs : 0.0; }

HoldoutReport reportHoldouts(const std::vector<HoldoutResult>& holdouts, const std::vector<LabelClass>& classes) {
  HoldoutReport report;
  for (const HoldoutResult& h : holdouts) report.add(h, classes);
  return report;
}

FoldData loadFoldData(const PipelineSettings& settings, int index, const StageCallback& progress) {
  const PipelineSettings fold_settings = validationFold(settings, index);
  FoldData data{loadTrainingData(fold_settings, progress), {}};
  for (std::size_t i = 0; i < fold_settings.holdout.size(); ++i) {
    if (progress) progress("loading the left-out images", static_cast<long>(i), static_cast<long>(fold_settings.holdout.size()), "");
    data.images.push_back(loadHoldout(fold_settings, static_cast<int>(i), data.training.stack));
  }
  return data;
}

ValidationFold validateFold(const PipelineSettings& settings, int index, const FoldProgress& progress, const FoldData* data) {
  VariantFold only = std::move(validateFoldVariants({settings}, index, progress, data).front());
  if (!only.failure.empty()) throw ValidationFailure(only.fold.area, only.failure);
  return std::move(only.fold);
}

std::vector<VariantFold> validateFoldVariants(const std::vector<PipelineSettings>& variants, int index,
                                              const FoldProgress& progress, const FoldData* data) {
  const std::vector<std::string> areas = trainingAreas(variants.front());
  std::vector<PipelineSettings> fold_settings;  // refuses unusable settings
  for (const PipelineSettings& v : variants) fold_settings.push_back(validationFold(v, index));
  const std::string& area = areas.at(static_cast<std::size_t>(index));
  StageCallback fold_progress;
  if (progress) {
    fold_progress = [&](const std::string& stage, long done, long total, const std::string& detail) {
      progress(index, area, stage, done, total, detail);
    };
  }
  auto start = std::chrono::steady_clock::now();
  std::optional<FoldData> loaded;
  std::optional<TrainedCostModel> learned;
  std::optional<LinearClassifier> classifier;
  try {
    if (data == nullptr) data = &loaded.emplace(loadFoldData(variants.front(), index, fold_progress));
    learned = trainLearned(data->training, fold_settings.front(), fold_progress);
    classifier = trainBaseline(data->training, fold_settings.front());
  } catch (const Error& e) {
    throw ValidationFailure(area, e.what());
  }
  std::vector<VariantFold> folds(variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    VariantFold& out = folds[v];
    out.fold.area = area;
    try {
      TrainedCostModel trained = *learned;
      applyAfterTraining(trained, fold_settings[v]);
      for (const HoldoutImage& image : data->images) {
        out.fold.report.add(scoreHoldout(fold_settings[v], image, trained.model, classifier ? &*classifier : nullptr, fold_progress),
                            variants[v].classes);
      }
      out.fold.images = static_cast<int>(data->images.size());
      out.fold.training = trained.report;
    } catch (const Error& e) {
      out.fold = ValidationFold{area, 0, {}, {}};
      out.failure = e.what();
    }
    const auto now = std::chrono::steady_clock::now();
    out.seconds = std::chrono::duration<double>(now - start).count();
    start = now;
  }
  return folds;
}

ValidationReport validateByArea(const PipelineSettings& settings, const FoldProgress& progress) {
  const std::size_t areas = trainingAreas(settings).size();
  validationFold(settings, 0);  // refuses unusable settings before any training
  ValidationReport validation;
  for (std::size_t a = 0; a < areas; ++a) {
    ValidationFold fold = validateFold(settings, static_cast<int>(a), progress);
    validation.pooled.add(fold.report);
    validation.folds.push_back(std::move(fold));
  }
  return validation;
}

}  // namespace mmp
