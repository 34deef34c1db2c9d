#include <mmp/frontend/multilabel_experiment.hpp>

#include <mmp/frontend/learner_config.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/model_selection.hpp>

#include <chrono>
#include <numeric>
#include <optional>

namespace mmp::tools {

PairwiseGraph labelGraph(const std::string& name, int labels, int states) {
  if (name == "complete") return PairwiseGraph::complete(labels, states);
  if (name == "chain") return PairwiseGraph::chain(labels, states);
  if (name == "empty") return PairwiseGraph::empty(labels, states);
  throw InvalidArgument("label graph '" + name + "': expected complete, chain or empty");
}

std::shared_ptr<const MultilabelData> multilabelModel(const datasets::MultilabelTable& table, const PairwiseGraph& graph,
                                                      MultilabelOptions options) {
  if (table.labels != graph.variables()) {
    throw InvalidArgument(table.source + ": " + std::to_string(table.labels) + " labels, the graph has " +
                          std::to_string(graph.variables()));
  }
  std::vector<std::vector<int>> y(table.size(), std::vector<int>(table.labels));
  for (std::size_t r = 0; r < table.size(); ++r) {
    for (int i = 0; i < table.labels; ++i) y[r][i] = table.y(static_cast<Eigen::Index>(r), i);
  }
  return std::make_shared<const MultilabelData>(graph, table.x, std::move(y), options);
}

MultilabelExamples multilabelExamples(const std::shared_ptr<const MultilabelData>& data, MultilabelInference inference,
                                      const std::vector<std::size_t>& rows) {
  MultilabelExamples out;
  std::vector<std::size_t> all = rows;
  if (all.empty()) {
    all.resize(data->size());
    std::iota(all.begin(), all.end(), 0);
  }
  for (std::size_t r : all) {
    out.owned.push_back(std::make_unique<MultilabelExample>(data, r, inference));
    out.list.push_back(out.owned.back().get());
    out.typed.push_back(out.owned.back().get());
  }
  return out;
}

MultilabelSettings multilabelSettings(const ConfigNode& config) {
  MultilabelSettings settings;
  settings.graph = config.choice("graph", settings.graph, {"complete", "chain", "empty"});
  settings.inference = config.choice("inference", "lp", {"exact", "lp"}) == "exact" ? MultilabelInference::Exact
                                                                                    : MultilabelInference::Lp;
  const ConfigNode learner = config.child("learner");
  learner.expectKeys({"kind", "online", "batch", "dlpw", "cutting_plane"});
  settings.learner = learnerSettings(learner, "kind", settings.learner, {"dlpw", "cutting_plane"});
  settings.learner.dlpw = dlpwParams(learner.child("dlpw"), settings.learner.dlpw);
  settings.formulation = parseFormulation(
      config.choice("formulation", "margin", {"margin", "slack", "slack_exact", "poslearn"}));
  if (settings.formulation != Formulation::Margin && settings.learner.kind == LearnerKind::Dlpw) {
    config.fail("formulation", "DLPW optimises margin scaling only; use learner.kind online, batch or cutting_plane");
  }
  if (settings.formulation != Formulation::Margin && settings.inference != MultilabelInference::Exact) {
    config.fail("formulation", describe(settings.formulation) +
                                   " needs inference: exact (the LP's relaxed answers carry no labelling's loss)");
  }
  const ConfigNode validation = config.child("validation");
  validation.expectKeys({"lambdas", "folds", "seed", "extend_at_edge"});
  settings.lambdas = validation.numbers("lambdas", {settings.learner.lambda()}, 1e-12, 1e12);
  if (settings.lambdas.empty()) validation.fail("lambdas", "list at least one lambda");
  settings.validation_folds = static_cast<int>(validation.integer("folds", settings.validation_folds, 2, 1000));
  settings.validation_seed = static_cast<std::uint64_t>(validation.integer("seed", 1, 0));
  settings.extend_at_edge = static_cast<int>(validation.integer("extend_at_edge", 0, 0, 10));
  return settings;
}

std::vector<std::vector<std::size_t>> validationFolds(std::size_t rows, int folds, std::uint64_t seed) {
  if (folds < 2 || static_cast<std::size_t>(folds) > rows) {
    throw InvalidArgument("multilabel: validation.folds " + std::to_string(folds) + ": expected 2.." + std::to_string(rows) +
                          " (the training rows)");
  }
  std::vector<std::size_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  Random rng(seed);
  rng.shuffle(order.begin(), order.end());
  std::vector<std::vector<std::size_t>> out(static_cast<std::size_t>(folds));
  for (std::size_t i = 0; i < rows; ++i) out[i % out.size()].push_back(order[i]);
  return out;
}

MultilabelTrained trainMultilabel(const MultilabelSettings& settings, double lambda, const ExampleList& examples,
                                  const TraceCallback& callback) {
  LearnerSettings learner = settings.learner;
  learner.setLambda(lambda);
  const std::unique_ptr<Learner> l = makeLearner(learner);
  if (callback) l->setCallback(callback);
  std::vector<FormulatedExample> adapters;
  MultilabelTrained t;
  t.w = l->train(formulate(examples, settings.formulation, adapters));
  t.seconds = l->seconds();
  t.passes = l->passes();
  t.formulation = l->formulation();
  t.info = describe(l->info()) + ": " + l->message();
  t.trace = l->trace();
  t.trace_value = l->traceValueName();
  return t;
}

MultilabelResult runMultilabel(const datasets::MultilabelTable& train, const datasets::MultilabelTable& test, const MultilabelSettings& settings,
                               const std::function<void(const std::string&)>& progress) {
  if (train.labels != test.labels || train.features != test.features) {
    throw InvalidArgument(train.source + " has " + std::to_string(train.labels) + " labels and " +
                          std::to_string(train.features) + " features, " + test.source + " " + std::to_string(test.labels) +
                          " and " + std::to_string(test.features));
  }
  if (settings.lambdas.empty()) throw InvalidArgument("multilabel: list at least one lambda");
  const PairwiseGraph graph = labelGraph(settings.graph, train.labels, settings.states);
  const auto train_model = multilabelModel(train, graph, settings.model);
  const auto test_model = multilabelModel(test, graph, settings.model);
  ThreadPool pool(0);
  MultilabelResult result;
  result.lambda = settings.lambdas.front();
  if (settings.lambdas.size() > 1) {
    const std::vector<std::vector<std::size_t>> folds =
        validationFolds(train.size(), settings.validation_folds, settings.validation_seed);
    std::size_t best = 0;
    std::vector<double> tried;
    const auto evaluate = [&](double lambda) {
      MultilabelValidation v{lambda, {}, 0.0};
      for (std::size_t k = 0; k < folds.size(); ++k) {
        if (progress) progress("validation: lambda " + numberText(lambda) + ", fold " + std::to_string(k + 1));
        std::vector<std::size_t> fit_rows;
        for (std::size_t other = 0; other < folds.size(); ++other) {
          if (other != k) fit_rows.insert(fit_rows.end(), folds[other].begin(), folds[other].end());
        }
        const MultilabelExamples fit = multilabelExamples(train_model, settings.inference, fit_rows);
        const MultilabelExamples held_out = multilabelExamples(train_model, settings.inference, folds[k]);
        const MultilabelTrained t = trainMultilabel(settings, lambda, fit.list);
        const MultilabelErrors e = multilabelErrors(held_out.typed, t.w, &pool);
        v.held_out.hamming += e.hamming * static_cast<double>(e.rows);
        v.held_out.subset += e.subset * static_cast<double>(e.rows);
        v.held_out.rows += e.rows;
        v.seconds += t.seconds;
      }
      v.held_out.hamming /= static_cast<double>(v.held_out.rows);
      v.held_out.subset /= static_cast<double>(v.held_out.rows);
      result.validation.push_back(v);
      tried.push_back(lambda);
      if (v.held_out.hamming < result.validation[best].held_out.hamming) best = result.validation.size() - 1;
    };
    for (double lambda : settings.lambdas) evaluate(lambda);
    for (int extra = 0; extra < settings.extend_at_edge; ++extra) {
      const std::optional<double> next = beyondGridEdge(tried, result.validation[best].lambda);
      if (!next) break;
      evaluate(*next);
    }
    result.lambda = result.validation[best].lambda;
  }
  if (progress) progress("training on every training row, lambda " + numberText(result.lambda));
  const MultilabelExamples all = multilabelExamples(train_model, settings.inference);
  const MultilabelTrained t = trainMultilabel(settings, result.lambda, all.list);
  result.weights = t.w;
  result.train_seconds = t.seconds;
  result.passes = t.passes;
  result.info = t.info;
  result.formulation = t.formulation;
  if (progress) progress("testing");
  const MultilabelExamples tests = multilabelExamples(test_model, settings.inference);
  const auto start = std::chrono::steady_clock::now();
  result.test = multilabelErrors(tests.typed, t.w, &pool);
  result.test_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.train = multilabelErrors(all.typed, t.w, &pool);
  return result;
}

}  // namespace mmp::tools
