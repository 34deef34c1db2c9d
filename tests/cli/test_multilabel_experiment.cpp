// `mmp multilabel` and its experiment (tools/frontend/include/mmp/frontend/multilabel_experiment.hpp) on small generated files.
#include "maps/maps_support.hpp"
#include "support.hpp"

#include "commands.hpp"
#include <mmp/frontend/multilabel_experiment.hpp>

#include <mmp/core/error.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using namespace mmp;
using namespace mmp::tools;

namespace {

// Rows whose labels follow a linear rule of four inputs, written as LIBSVM multilabel lines.
void writeRows(const std::string& path, Random& rng, const Eigen::MatrixXd& rule, int rows) {
  std::ofstream out(path);
  for (int r = 0; r < rows; ++r) {
    const Eigen::VectorXd x = test::randomVector(rng, rule.cols());
    const Eigen::VectorXd z = rule * x;
    std::string labels;
    for (Eigen::Index i = 0; i < z.size(); ++i) {
      if (z[i] > 0) labels += (labels.empty() ? "" : ",") + std::to_string(i);
    }
    out << labels;
    for (Eigen::Index j = 0; j < x.size(); ++j) out << ' ' << j + 1 << ':' << x[j];
    out << '\n';
  }
}

}  // namespace

TEST_CASE("validation folds cut the training rows into a seeded partition") {
  const auto folds = validationFolds(23, 5, 3);
  REQUIRE(folds.size() == 5);
  std::set<std::size_t> all;
  for (const auto& f : folds) {
    CHECK(f.size() >= 4);
    all.insert(f.begin(), f.end());
  }
  CHECK(all.size() == 23);
  CHECK(validationFolds(23, 5, 3) == folds);
  CHECK(validationFolds(23, 5, 4) != folds);
  CHECK_THROWS_WITH_AS(validationFolds(23, 1, 3), doctest::Contains("validation.folds 1: expected 2..23"), InvalidArgument);
}

TEST_CASE("mmp multilabel trains on one file with lambda chosen by cross-validation and scores the other" * doctest::test_suite("long")) {
  test::TempDir dir;
  Random rng(12);
  const Eigen::MatrixXd rule = Eigen::MatrixXd::NullaryExpr(4, 5, [&] { return rng.normal(); });
  writeRows(dir.file("train.svm"), rng, rule, 120);
  writeRows(dir.file("test.svm"), rng, rule, 80);
  const std::string config = dir.file("multilabel.yaml");
  // Runs mmp multilabel on the two files with these further settings; its results.json.
  const auto run = [&](const std::string& settings, const std::string& out) {
    std::ofstream(config) << "data_root: .\ntrain: {libsvm: train.svm}\ntest: {libsvm: test.svm}\nfeatures: 5\nlabels: 4\n"
                          << settings;
    CLI::App app;
    addMultilabelCommand(app);
    app.parse(std::vector<std::string>{dir.file(out), "--output-dir", config, "--config", "multilabel"});
    std::ifstream in(dir.file(out + "/results.json"));
    REQUIRE(in);
    return nlohmann::json::parse(in);
  };
  const nlohmann::json results =
      run("learner: {kind: dlpw, dlpw: {epochs: 20}}\nvalidation: {lambdas: [0.01, 100], folds: 3}\n", "out");
  CHECK(results["validation"].size() == 2);
  CHECK(results["lambda"] == 0.01);  // lambda 100 leaves w almost 0: every label off
  CHECK(results["test_hamming"].get<double>() < 0.2);
  CHECK(results["test_subset_error"].get<double>() >= results["test_hamming"].get<double>());

  // lambda 0.01 is the grid's smaller edge: extend_at_edge tries one step (x 1e-4) beyond it
  const nlohmann::json edge = run(
      "learner: {kind: dlpw, dlpw: {epochs: 20}}\nvalidation: {lambdas: [0.01, 100], folds: 3, extend_at_edge: 1}\n",
      "out_edge");
  REQUIRE(edge["validation"].size() == 3);
  CHECK(edge["validation"][2]["lambda"].get<double>() == doctest::Approx(1e-6));

  // the cutting plane on exact inference, through the same config section
  const nlohmann::json cp_results = run(
      "inference: exact\nlearner: {kind: cutting_plane, cutting_plane: {iterations: 500}}\nvalidation: {lambdas: [0.01]}\n",
      "out_cp");
  CHECK(cp_results["learner"].get<std::string>().find("cutting plane, lambda 0.01") == 0);
  CHECK(cp_results["test_hamming"].get<double>() < 0.2);

  // PosLearn through the same command: it says which formulation it trained
  const nlohmann::json trained = run(
      "inference: exact\nformulation: poslearn\nlearner: {kind: batch, batch: {iterations: 30}}\n"
      "validation: {lambdas: [0.01]}\n",
      "out_poslearn");
  CHECK(trained["formulation"] == "poslearn");
  CHECK(trained["test_hamming"].get<double>() < 0.3);

  const auto refused = [&](const std::string& text, const std::string& message) {
    std::ofstream(config) << text;
    CLI::App bad;
    addMultilabelCommand(bad);
    CHECK_THROWS_WITH(bad.parse(std::vector<std::string>{config, "--config", "multilabel"}), doctest::Contains(message.c_str()));
  };
  refused("train: {libsvm: train.svm}\ntest: {libsvm: test.svm}\ngraph: star\n",
          "graph: 'star' is not one of: complete, chain, empty");
  refused("train: {libsvm: train.svm}\ntest: {libsvm: test.svm}\nformulation: slack\n", "needs inference: exact");
  refused("train: {libsvm: train.svm}\ntest: {libsvm: test.svm}\nformulation: slack\ninference: exact\n"
          "learner: {kind: dlpw}\n",
          "DLPW optimises margin scaling only");
  refused("train: {libsvm: train.svm}\ntest: {libsvm: test.svm}\nformulation: slack-scaling\n",
          "'slack-scaling' is not one of: margin, slack, slack_exact, poslearn");
}
