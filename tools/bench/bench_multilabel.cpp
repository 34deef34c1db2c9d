// bench_multilabel: seed 002's comparison (Meshi et al., ICML 2010, Figure 1) on Yeast, Scene and the
// synthetic 20-variable, 4-state model: the objective of eq. 7 (lambda/2 |w|^2 + the mean relaxed
// hinge, evaluated with the LP solved to convergence; its cost is not counted) against training time
// for DLPW (R = 10 diffusion passes a step, warm starts), Pegasos-LP (the same Pegasos loop with the LP
// solved to convergence from zero messages every step) and the batch subgradient learner (LP oracle,
// gamma/t steps).  lambda is chosen for DLPW on a validation split of the training rows (mmp
// multilabel's procedure: 5-fold cross-validation inside the training rows); every method then runs at
// that lambda for the same time budget, on one thread.  In the same run the peer: one linear SVM per
// label (liblinear, L2-regularised hinge, C chosen on the same folds).
//
// Prints a table and, last, one JSON line
//   {"yeast":{"dlpw_s":..,"pegasos_lp_s":..,"hamming":..,"peer_hamming":..},"scene":{...},"synthetic":{...}}
// where *_s is the time each method took to reach Pegasos-LP's final objective (within 1e-3 relative);
// null if it never did.  Writes objective_vs_time_<set>.png.
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/multilabel_experiment.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/render.hpp>

#include <CLI/CLI.hpp>
#include <linear.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>
#include <optional>

using namespace mmp;
using namespace mmp::tools;

namespace {

struct Curve {
  std::string name;
  std::vector<double> seconds, objective;
  Eigen::VectorXd w;
};

// Trains `settings` for `budget` seconds, recording eq. 7 after each epoch (DLPW) or iteration (batch)
// with the time spent evaluating it taken out.
Curve traceObjective(const std::string& name, LearnerSettings settings, const ExampleList& train, const Objective& objective,
                     double budget, ThreadPool& pool) {
  Curve curve{name, {}, {}, {}};
  const std::unique_ptr<Learner> learner = makeLearner(settings);
  double excluded = 0.0;
  const bool batch = settings.kind == LearnerKind::Batch;
  double next_evaluation = 0.0;  // evaluate at training times 0.01 s x 1.15^k, so about 40 points a decade at most
  learner->setCallback([&](const TraceRecord& record) {
    const double at = record.elapsed_seconds - excluded;
    if (at < next_evaluation && at < budget) return true;
    next_evaluation = std::max(0.01, at * 1.15);
    const auto start = std::chrono::steady_clock::now();
    // The batch trace value is c(w_t) of its own oracle (the LP solved to convergence): eq. 7.
    const double value = batch ? record.value : objective.evaluate(learner->weights(), nullptr, &pool).value;
    curve.seconds.push_back(at);
    curve.objective.push_back(value);
    excluded += secondsSince(start);
    return at < budget;
  });
  curve.w = learner->train(train);
  std::printf("  %-11s %6ld passes in %6.2f s, final objective %.5f\n", name.c_str(), learner->passes(),
              curve.seconds.empty() ? 0.0 : curve.seconds.back(), curve.objective.empty() ? NAN : curve.objective.back());
  return curve;
}

std::optional<double> timeToReach(const Curve& curve, double target) {
  for (std::size_t i = 0; i < curve.seconds.size(); ++i) {
    if (curve.objective[i] <= target) return curve.seconds[i];
  }
  return std::nullopt;
}

// One linear SVM per label (liblinear, L2-regularised L1-loss SVC, bias on); Hamming loss and subset
// error of `test` with C chosen on the split.
struct PeerResult {
  double c = 0.0;
  MultilabelErrors test;
};

std::vector<std::vector<int>> svmPredict(const datasets::MultilabelTable& train, const std::vector<std::size_t>& fit_rows,
                                         const datasets::MultilabelTable& test, const std::vector<std::size_t>& test_rows, double c) {
  const int s = train.features;
  const auto nodesOf = [&](const datasets::MultilabelTable& t, std::size_t r) {
    std::vector<feature_node> nodes;
    for (int j = 0; j < s; ++j) {
      if (t.x(static_cast<Eigen::Index>(r), j) != 0.0) nodes.push_back({j + 1, t.x(static_cast<Eigen::Index>(r), j)});
    }
    nodes.push_back({s + 1, 1.0});  // bias
    nodes.push_back({-1, 0.0});
    return nodes;
  };
  std::vector<std::vector<feature_node>> rows;
  for (std::size_t r : fit_rows) rows.push_back(nodesOf(train, r));
  std::vector<feature_node*> x;
  for (auto& row : rows) x.push_back(row.data());
  std::vector<std::vector<int>> predicted(test_rows.size(), std::vector<int>(train.labels, 0));
  for (int label = 0; label < train.labels; ++label) {
    std::vector<double> y;
    for (std::size_t r : fit_rows) y.push_back(train.y(static_cast<Eigen::Index>(r), label) != 0 ? 1.0 : -1.0);
    problem prob{};
    prob.l = static_cast<int>(fit_rows.size());
    prob.n = s + 1;
    prob.y = y.data();
    prob.x = x.data();
    prob.bias = -1;  // the bias is an explicit feature above
    parameter param{};
    param.solver_type = L2R_L1LOSS_SVC_DUAL;
    param.C = c;
    param.eps = 0.1;
    model* m = ::train(&prob, &param);
    for (std::size_t k = 0; k < test_rows.size(); ++k) {
      std::vector<feature_node> nodes = nodesOf(test, test_rows[k]);
      predicted[k][label] = ::predict(m, nodes.data()) > 0 ? 1 : 0;
    }
    free_and_destroy_model(&m);
  }
  return predicted;
}

MultilabelErrors errorsOf(const datasets::MultilabelTable& t, const std::vector<std::size_t>& rows, const std::vector<std::vector<int>>& p) {
  MultilabelErrors e;
  e.rows = rows.size();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    int wrong = 0;
    for (int i = 0; i < t.labels; ++i) wrong += p[k][i] != t.y(static_cast<Eigen::Index>(rows[k]), i) ? 1 : 0;
    e.hamming += static_cast<double>(wrong) / t.labels;
    e.subset += wrong > 0 ? 1.0 : 0.0;
  }
  e.hamming /= static_cast<double>(rows.size());
  e.subset /= static_cast<double>(rows.size());
  return e;
}

PeerResult oneSvmPerLabel(const datasets::MultilabelTable& train, const datasets::MultilabelTable& test, const MultilabelSettings& settings) {
  const std::vector<std::vector<std::size_t>> folds =
      validationFolds(train.size(), settings.validation_folds, settings.validation_seed);  // mmp multilabel's folds
  PeerResult best{0.0, {}};
  double best_hamming = std::numeric_limits<double>::infinity();
  for (double c : {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0}) {
    double hamming = 0.0;
    for (std::size_t k = 0; k < folds.size(); ++k) {
      std::vector<std::size_t> fit_rows;
      for (std::size_t other = 0; other < folds.size(); ++other) {
        if (other != k) fit_rows.insert(fit_rows.end(), folds[other].begin(), folds[other].end());
      }
      hamming += errorsOf(train, folds[k], svmPredict(train, fit_rows, train, folds[k], c)).hamming *
                 static_cast<double>(folds[k].size());
    }
    if (hamming < best_hamming) best_hamming = hamming, best.c = c;
  }
  std::vector<std::size_t> all(train.size()), tests(test.size());
  std::iota(all.begin(), all.end(), 0);
  std::iota(tests.begin(), tests.end(), 0);
  best.test = errorsOf(test, tests, svmPredict(train, all, test, tests, best.c));
  return best;
}

// The synthetic model's rows as tables: the first `rows` for training, the next `rows` for testing,
// both labelled by the same generating w.
std::pair<datasets::MultilabelTable, datasets::MultilabelTable> syntheticTables(int rows) {
  const MultilabelData data = syntheticMultilabel({20, 4, 2 * rows, 1});
  const auto half = [&](int from, const std::string& name) {
    datasets::MultilabelTable t;
    t.features = 20;
    t.labels = 20;
    t.x = data.inputs().middleRows(from, rows);
    t.y.resize(rows, 20);
    for (int r = 0; r < rows; ++r) {
      for (int i = 0; i < 20; ++i) t.y(r, i) = static_cast<std::uint8_t>(data.labels(from + r)[i]);
    }
    t.source = name;
    return t;
  };
  return {half(0, "synthetic (train)"), half(rows, "synthetic (test)")};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_multilabel: DLPW against Pegasos-LP and the batch learner (eq. 7 against time), and one SVM per label"};
  std::string data_root = "../shared/data";
  double budget = 20.0;
  std::string output_dir = "out/bench_multilabel";
  std::vector<std::string> sets = {"yeast", "scene", "synthetic"};
  app.add_option("--data-root", data_root, "folder holding multilabel/ (default: ../shared/data)");
  app.add_option("--budget", budget, "seconds of training for each method on each set (default 20)");
  app.add_option("--sets", sets, "which of yeast, scene, synthetic")->delimiter(',');
  app.add_option("--output-dir", output_dir, "where the PNGs go");
  CLI11_PARSE(app, argc, argv);
  set_print_string_function([](const char*) {});  // liblinear's progress dots
  std::filesystem::create_directories(output_dir);
  ThreadPool pool(0);
  Json json = Json::object();
  std::printf("%-10s %-11s %10s %10s %10s %10s %9s\n", "set", "method", "objective", "reach s", "test Ham", "subset", "lambda");
  for (const std::string& set : sets) {
    datasets::MultilabelTable train, test;
    MultilabelSettings settings;
    settings.learner.kind = LearnerKind::Dlpw;
    settings.learner.dlpw.stop.max_iterations = 30;
    settings.lambdas = {1, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 0.0003};  // as configs/multilabel_*.yaml
    if (set == "yeast" || set == "scene") {
      std::tie(train, test) = datasets::readStandardSplit(data_root, set);
    } else if (set == "synthetic") {
      std::tie(train, test) = syntheticTables(100);
      settings.states = 4;
      settings.model = {UnaryInput::Own, false};
    } else {
      std::fprintf(stderr, "bench_multilabel: unknown set '%s' (yeast, scene, synthetic)\n", set.c_str());
      return 2;
    }
    std::printf("%s: %zu training rows, %zu test rows, %d labels; choosing lambda for DLPW by 5-fold cross-validation\n",
                set.c_str(), train.size(), test.size(), train.labels);
    const MultilabelResult chosen = runMultilabel(train, test, settings);
    const double lambda = chosen.lambda;
    const std::shared_ptr<const MultilabelData> model =
        multilabelModel(train, labelGraph("complete", train.labels, settings.states), settings.model);
    const MultilabelExamples examples = multilabelExamples(model, MultilabelInference::Lp);
    const Objective objective(examples.list, {lambda, 1});

    LearnerSettings dlpw;
    dlpw.kind = LearnerKind::Dlpw;
    dlpw.dlpw.lambda = lambda;
    dlpw.dlpw.stop.max_iterations = 1000000;
    LearnerSettings pegasos = dlpw;
    pegasos.dlpw.passes = 0;
    pegasos.dlpw.warm_start = false;
    LearnerSettings batch;
    batch.kind = LearnerKind::Batch;
    batch.batch.lambda = lambda;
    batch.batch.steps = StepSchedule::inverseLambdaT(lambda);
    batch.batch.projection = std::make_shared<L2BallProjection>(1.0 / std::sqrt(lambda));  // as Pegasos
    batch.batch.threads = 1;
    batch.batch.stop.max_iterations = 1000000;
    const std::vector<Curve> curves = {traceObjective("DLPW", dlpw, examples.list, objective, budget, pool),
                                       traceObjective("Pegasos-LP", pegasos, examples.list, objective, budget, pool),
                                       traceObjective("batch", batch, examples.list, objective, budget, pool)};
    const double target = curves[1].objective.back();
    const double threshold = target + 1e-3 * std::abs(target);
    Json row = Json::object();
    for (const Curve& c : curves) {
      const std::optional<double> reach = timeToReach(c, threshold);
      std::printf("%-10s %-11s %10.5f %10s %10s %10s %9.3g\n", set.c_str(), c.name.c_str(), c.objective.back(),
                  reach ? std::to_string(*reach).substr(0, 7).c_str() : "never", "", "", lambda);
      const std::string key = c.name == "DLPW" ? "dlpw_s" : c.name == "Pegasos-LP" ? "pegasos_lp_s" : "batch_s";
      row[key] = reach ? Json(*reach) : Json(nullptr);
      row[key.substr(0, key.size() - 2) + "_objective"] = c.objective.back();
    }
    std::printf("%-10s %-11s %10s %10s %10.4f %10.4f %9.3g\n", set.c_str(), "DLPW (mmp)", "", "", chosen.test.hamming,
                chosen.test.subset, lambda);
    row["lambda"] = lambda;
    row["hamming"] = chosen.test.hamming;
    row["subset_error"] = chosen.test.subset;
    if (set != "synthetic") {
      const PeerResult peer = oneSvmPerLabel(train, test, settings);
      std::printf("%-10s %-11s %10s %10s %10.4f %10.4f   C %.3g\n", set.c_str(), "SVM/label", "", "", peer.test.hamming,
                  peer.test.subset, peer.c);
      row["peer_hamming"] = peer.test.hamming;
      row["peer_subset_error"] = peer.test.subset;
      row["peer_c"] = peer.c;
    }
    json[set] = row;
    std::vector<ChartSeries> series;
    const cv::Scalar colours[] = {cv::Scalar(40, 40, 210), cv::Scalar(180, 90, 30), cv::Scalar(40, 160, 40)};
    for (std::size_t k = 0; k < curves.size(); ++k) series.push_back({curves[k].name, curves[k].seconds, curves[k].objective, colours[k]});
    writeImage(output_dir + "/objective_vs_time_" + set + ".png",
               lineChart(series, {set + ": objective of eq. 7 (lambda " + numberText(lambda) + ") against training time",
                                  "seconds", "objective", 900, 520, true}));
    std::fflush(stdout);
  }
  std::printf("\n%s\n", jsonText(json, -1).c_str());
  return 0;
}
