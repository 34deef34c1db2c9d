// The rows of the settings table (setting_keys.hpp) of the commands beside `mmp train`: teaching
// (adapt.*: `mmp adapt`, the page's teacher), suggestions (suggest.*: `mmp suggest`) and the teaching
// page's bounds (serve.*: `mmp serve`); and the structs' validate(), which check a program's values
// against the same rows.  The ranges are the ones the adapt config had (epochs 1..100000, LEARCH
// rounds 1..10000, ...), with an upper end where there was none, so that a flag or keyword cannot
// ask for a run that never ends or memory that cannot exist.
#include "setting_key_builders.hpp"

#include <mmp/maps/training/settings.hpp>

namespace mmp {
namespace setting_rows {
namespace {

using S = PipelineSettings;

constexpr int kMaxThreads = 256;  // the train config's bound on every thread count

SettingKey forCommand(SettingCommand command, SettingKey k) {
  k.command = command;
  return k;
}

// adapt.lambda: one value, or a list of candidates chosen by the held-out loss (adaptAndReport).
SettingKey adaptLambdaKey() {
  SettingKey k = numberKey("adapt.lambda", kPositive, 1e12,
                           "linear models: the prior's strength toward the parent's weights (larger: closer to the parent); "
                           "a list: each a candidate, chosen by the held-out loss of the "
                           "demonstrations (3 or more)",
                           [](S& s) -> double& { return s.adapt.lambda; });
  k.candidates = true;
  k.get = [](const S& s) { return s.adapt.lambdas.size() > 1 ? list(s.adapt.lambdas) : number(s.adapt.lambda); };
  k.set = [](S& s, const SettingValue& v) {
    s.adapt.lambdas = v.numbers;
    s.adapt.lambda = v.numbers.empty() ? v.number : v.numbers.front();
  };
  return k;
}

void adaptKeys(std::vector<SettingKey>& keys) {
  keys.push_back(adaptLambdaKey());
  keys.push_back(choiceKey("adapt.prior", {"weights", "costs"},
                           "linear models: what the prior keeps near the parent's: weights (lambda/2 |w - w0|^2) or costs "
                           "(the mean squared change of log-cost over the taught images' cells); docs/teaching.md",
                           [](const S& s) { return describe(s.adapt.prior); },
                           [](S& s, const std::string& v) { s.adapt.prior = v == "costs" ? AdaptationPrior::Costs : AdaptationPrior::Weights; }));
  keys.push_back(integerKey<int>("adapt.epochs", 1, 100000, "linear models: the most oracle passes the exact solver may take (it stops at the optimum)",
                                 [](S& s) -> int& { return s.adapt.epochs; }));
  keys.push_back(integerKey<int>("adapt.learch_rounds", 1, 10000, "LEARCH models: trees added",
                                 [](S& s) -> int& { return s.adapt.learch_rounds; }));
  keys.push_back(numberKey("adapt.learch_step", kPositive, 1e6, "LEARCH models: the new trees' step, eta_t = step / sqrt(t)",
                           [](S& s) -> double& { return s.adapt.learch_step; }));
  keys.push_back(integerKey<int>("adapt.learch_depth", 1, 16, "LEARCH models: the depth of the new trees",
                                 [](S& s) -> int& { return s.adapt.learch_depth; }));
  keys.push_back(numberKey("adapt.network_lambda", kPositive, 1e12,
                           "network models: the proximal pull toward the parent's parameters (larger: closer)",
                           [](S& s) -> double& { return s.adapt.network_lambda; }));
  keys.push_back(numberKey("adapt.network_step", kPositive, 10.0, "network models: Adam's step",
                           [](S& s) -> double& { return s.adapt.network_step; }));
  keys.push_back(integerKey<int>("adapt.network_epochs", 1, 10000, "network models: Adam steps over the demonstrations",
                                 [](S& s) -> int& { return s.adapt.network_epochs; }));
  keys.push_back(booleanKey("adapt.network_head_only", "network models: fine-tune the last 1 x 1 layer only",
                            [](S& s) -> bool& { return s.adapt.network_head_only; }));
  keys.push_back(numberKey("adapt.min_cost", kPositive, 1e6, "the smallest loss-augmented cell cost the linear projection allows",
                           [](S& s) -> double& { return s.adapt.min_cost; }));
  keys.push_back(integerKey<int>("adapt.threads", 0, kMaxThreads, "oracle calls at once (0: every core); the result does not depend on it",
                                 [](S& s) -> int& { return s.adapt.threads; }));
  keys.push_back(booleanKey("adapt.held_out",
                            "score each demonstration held out (the model taught on the others), with 2 or more demonstrations",
                            [](S& s) -> bool& { return s.adapt.held_out; }));
  keys.push_back(numberKey("adapt.loss.radius_px", kPositive, 1e6, "the demonstrations' loss: distance (pixels) at which it reaches its scale",
                           [](S& s) -> double& { return s.adapt.loss.radius_px; }));
  keys.push_back(numberKey("adapt.loss.scale", kPositive, 1e6, "the demonstrations' loss: the margin asked of a path far from one",
                           [](S& s) -> double& { return s.adapt.loss.scale; }));
}

void suggestKeys(std::vector<SettingKey>& keys) {
  keys.push_back(choiceKey("suggest.rule", {"change", "committee"},
                           "how a pair is valued: change (the expected change of the image's costs a demonstration would "
                           "make) or committee (how far perturbed copies' plans stray from the model's); docs/teaching.md",
                           [](const S& s) { return describe(s.suggest.rule); },
                           [](S& s, const std::string& v) { s.suggest.rule = v == "committee" ? SuggestionRule::Committee : SuggestionRule::Change; }));
  keys.push_back(integerKey<int>("suggest.members", 1, 1000, "perturbed copies of the model",
                                 [](S& s) -> int& { return s.suggest.members; }));
  keys.push_back(numberKey("suggest.spread", kPositive, 5.0, "each weight (and tree step) of a copy times exp(spread N(0, 1))",
                           [](S& s) -> double& { return s.suggest.spread; }));
  keys.push_back(integerKey<std::uint64_t>("suggest.seed", 0, kMaxSeed, "seed of the candidate pairs and the copies",
                                           [](S& s) -> std::uint64_t& { return s.suggest.seed; }));
  keys.push_back(integerKey<int>("suggest.threads", 0, kMaxThreads, "plans at once (0: every core); the values do not depend on it",
                                 [](S& s) -> int& { return s.suggest.threads; }));
  keys.push_back(integerKey<int>("suggest.sample_cells", 10, 10000000,
                                 "rule change: the image's cells (a regular sample) over which the cost change is measured",
                                 [](S& s) -> int& { return s.suggest.sample_cells; }));
  keys.push_back(integerKey<int>("suggest.n", 1, 1000, "pairs to suggest", [](S& s) -> int& { return s.suggestion_search.n; }));
  keys.push_back(integerKey<int>("suggest.candidates", 1, 100000, "seeded candidate pairs valued",
                                 [](S& s) -> int& { return s.suggestion_search.candidates; }));
  keys.push_back(numberKey("suggest.min_separation_px", kPositive, 1e7,
                           "least distance (pixels) between a pair's ends; the suggested pairs' ends are at least half of it apart",
                           [](S& s) -> double& { return s.suggestion_search.min_separation_px; }));
}

void pageKeys(std::vector<SettingKey>& keys) {
  keys.push_back(integerKey<long long>("serve.max_image_pixels", 1, 4000000000L, "images larger than this are refused at start",
                                       [](S& s) -> long long& { return s.page.max_image_pixels; }));
  keys.push_back(integerKey<std::size_t>("serve.max_body_bytes", 1024, 268435456L, "request bodies (longer ones: 413)",
                                         [](S& s) -> std::size_t& { return s.page.max_body_bytes; }));
  keys.push_back(integerKey<int>("serve.max_picture_px", 16, 16384, "the long side (pixels) of any picture the page is sent",
                                 [](S& s) -> int& { return s.page.max_picture_px; }));
  keys.push_back(integerKey<int>("serve.max_points", 2, 1000000, "points of a drawn demonstration",
                                 [](S& s) -> int& { return s.page.max_points; }));
  keys.push_back(numberKey("serve.max_ompl_budget", kPositive, 600.0, "seconds an OMPL planner may be given",
                           [](S& s) -> double& { return s.page.max_ompl_budget; }));
}

}  // namespace

void commandKeys(std::vector<SettingKey>& keys) {
  const std::pair<SettingCommand, void (*)(std::vector<SettingKey>&)> groups[] = {
      {SettingCommand::Adapt, adaptKeys}, {SettingCommand::Suggest, suggestKeys}, {SettingCommand::Serve, pageKeys}};
  for (const auto& [command, add] : groups) {
    std::vector<SettingKey> rows;
    add(rows);
    for (SettingKey& k : rows) keys.push_back(forCommand(command, std::move(k)));
  }
}

}  // namespace setting_rows

namespace {

// A struct's check: its values in a default PipelineSettings, checked by its command's rows (the rows
// of the command's other structs see their defaults, which are in range).
template <class T>
void checkAs(const T& value, T PipelineSettings::*member, SettingCommand command) {
  PipelineSettings s;
  s.*member = value;
  checkSettings(s, command);
}

}  // namespace

void AdaptationSettings::validate() const { checkAs(*this, &PipelineSettings::adapt, SettingCommand::Adapt); }
void SuggestionSettings::validate() const { checkAs(*this, &PipelineSettings::suggest, SettingCommand::Suggest); }
void SuggestionSearch::validate() const { checkAs(*this, &PipelineSettings::suggestion_search, SettingCommand::Suggest); }
void PageLimits::validate() const { checkAs(*this, &PipelineSettings::page, SettingCommand::Serve); }

std::string describe(AdaptationPrior prior) { return prior == AdaptationPrior::Costs ? "costs" : "weights"; }

std::string describe(SuggestionRule rule) { return rule == SuggestionRule::Committee ? "committee" : "change"; }

SuggestionRule parseSuggestionRule(const std::string& name) {
  PipelineSettings s;
  applySetting(s, "suggest.rule", name);  // the row's message: "suggest.rule: expected one of change, committee, got '...'"
  return s.suggest.rule;
}

}  // namespace mmp
