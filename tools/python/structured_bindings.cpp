// The structured tasks behind mmp.ChainSSVM and mmp.MultilabelSSVM (tools/python/mmp/estimators.py):
// fitting, predicting and scoring the chain model (core/tasks/chain.hpp) and the pairwise multilabel
// model (core/tasks/multilabel.hpp) on NumPy data, with the learner settings of the OCR and multilabel
// configs read by their own readers (tools::ocrLearnerSettings, tools::multilabelSettings) and the
// multilabel training step of `mmp multilabel` (tools::trainMultilabel), so that the same settings on
// the same data give the same weights as the command line, bit for bit.
#include "bindings.hpp"

#include <mmp/frontend/multilabel_experiment.hpp>
#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/tasks/chain.hpp>
#include <mmp/core/tasks/multilabel.hpp>
#include <mmp/core/thread_pool.hpp>

#include <pybind11/stl.h>

namespace mmp::python {
namespace {

// The learner's report and trace as a dict (the trace as columns).
py::dict reportOf(long passes, const std::string& info, double seconds, Formulation formulation,
                  const std::vector<TraceRecord>& trace, const std::string& trace_value) {
  std::vector<long> iteration;
  std::vector<double> value, weight_norm, elapsed;
  for (const TraceRecord& r : trace) {
    iteration.push_back(r.iteration), value.push_back(r.value), weight_norm.push_back(r.weight_norm);
    elapsed.push_back(r.elapsed_seconds);
  }
  py::dict t;
  t["iteration"] = iteration, t["value"] = value, t["weight_norm"] = weight_norm, t["elapsed_seconds"] = elapsed;
  py::dict d;
  d["passes"] = passes, d["info"] = info, d["seconds"] = seconds, d["formulation"] = describe(formulation);
  d["trace"] = t, d["trace_value"] = trace_value;
  return d;
}

// A learner callback that polls for Ctrl-C and reports progress; `total` callbacks expected.
TraceCallback traceCallback(const Interrupts& interrupts, std::string stage, long total) {
  return [interrupts, stage = std::move(stage), total](const TraceRecord& r) {
    interrupts.poll(stage, std::min(r.iteration, total), total, "");
    return true;
  };
}

py::array_t<double> weightsArray(const Eigen::VectorXd& w) { return py::array_t<double>(w.size(), w.data()); }

Eigen::VectorXd weightsOf(const py::array& w, const std::string& caller) {
  const auto a = denseArray<double>(w, caller + ": the weights", "expected a 1-D array (coef_)");
  if (a.ndim() != 1) throw InvalidArgument(caller + ": the weights must be a 1-D array (coef_)");
  return Eigen::Map<const Eigen::VectorXd>(a.data(), a.size());
}

// ---- the chain ----

// Sequences X[i] (L_i x F arrays; non-zero entries are the active features) with labels Y[i] (L_i
// integers in [0, labels)), or all-zero labels when Y is None (for predicting).
std::shared_ptr<ChainData> chainData(const py::sequence& X, const py::object& Y, int labels, const std::string& caller) {
  if (X.size() == 0) throw InvalidArgument(caller + ": X holds no sequence");
  if (!Y.is_none() && py::len(Y) != X.size()) {
    throw InvalidArgument(caller + ": X holds " + std::to_string(X.size()) + " sequences, Y " + std::to_string(py::len(Y)));
  }
  const py::sequence ys = Y.is_none() ? py::sequence() : Y.cast<py::sequence>();
  std::shared_ptr<ChainData> data;
  std::vector<std::vector<int>> active;
  std::vector<int> y;
  for (std::size_t i = 0; i < X.size(); ++i) {
    const std::string name = "X[" + std::to_string(i) + "]";
    const auto x = denseArray<double>(X[i], caller + ": " + name, "expected an L x F array (one row of features per position)");
    if (x.ndim() != 2 || x.shape(0) < 1) {
      throw InvalidArgument(caller + ": " + name + ": expected an L x F array (one row of features per position)");
    }
    if (!data) data = std::make_shared<ChainData>(labels, static_cast<int>(x.shape(1)));
    if (x.shape(1) != data->features()) {
      throw InvalidArgument(caller + ": " + name + " has " + std::to_string(x.shape(1)) + " features per position, X[0] " +
                            std::to_string(data->features()));
    }
    const auto length = static_cast<std::size_t>(x.shape(0));
    active.assign(length, {});
    for (std::size_t t = 0; t < length; ++t) {
      for (int f = 0; f < data->features(); ++f) {
        const double v = x.at(t, f);
        if (v != 0.0 && v != 1.0) {  // counted as 1 before, without a word (0.366 where the largest feature scored 0.818)
          throw InvalidArgument(caller + ": " + name + "[" + std::to_string(t) + ", " + std::to_string(f) + "] = " + numberText(v) +
                                ": the chain's features are binary, 0 or 1 (an active input, as an OCR letter's pixels); "
                                "threshold or one-hot encode real-valued features");
        }
        if (v != 0.0) active[t].push_back(f);
      }
    }
    y.assign(length, 0);
    if (!Y.is_none()) {
      const auto labelled = denseArray<long>(ys[i], caller + ": Y[" + std::to_string(i) + "]", "expected a 1-D array of labels");
      if (labelled.ndim() != 1 || static_cast<std::size_t>(labelled.shape(0)) != length) {
        throw InvalidArgument(caller + ": Y[" + std::to_string(i) + "]: expected " + std::to_string(length) +
                              " labels, one per row of " + name);
      }
      for (std::size_t t = 0; t < length; ++t) y[t] = static_cast<int>(labelled.at(t));
    }
    try {
      data->addSequence(active, y);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(caller + ": sequence " + std::to_string(i) + ": " + e.what());
    }
  }
  return data;
}

struct ChainSet {
  std::vector<ChainExample> examples;
  std::vector<const ChainExample*> pointers;
};

ChainSet chainSet(const std::shared_ptr<ChainData>& data, const ChainOptions& options) {
  ChainSet set;
  set.examples.reserve(data->sequences());
  for (std::size_t i = 0; i < data->sequences(); ++i) set.examples.emplace_back(data, i, options);
  for (const ChainExample& e : set.examples) set.pointers.push_back(&e);
  return set;
}

ChainOptions chainOptions(bool start_end) {
  ChainOptions options;
  options.start_end = start_end;
  return options;
}

// The chain's settings as the OCR configs' readers take them (unknown keys and values refused by name).
tools::OcrLearnerSettings chainSettings(const py::object& settings) {
  const tools::ConfigNode config = configNode(settings, "ChainSSVM");
  const tools::OcrLearnerSettings s = tools::ocrLearnerSettings(config);  // first: a bad learner name is named as such
  config.expectKeys({"learner", "objective", "formulation", "beta", "start_end", "online", "batch", "cutting_plane", "bcfw",
                     "lbfgs"});
  return s;
}

void bindChain(py::module_& m) {
  // The estimator's constructor and set_params check their settings here, not first in fit.
  m.def("_chain_check_settings", [](const py::object& settings) { chainSettings(settings); }, py::arg("settings"));
  m.def("_chain_fit", [](const py::sequence& X, const py::sequence& Y, int labels, const py::object& settings,
                         const py::object& progress) {
    const tools::OcrLearnerSettings s = chainSettings(settings);
    const ChainSet set = chainSet(chainData(X, Y, labels, "ChainSSVM.fit"), s.chainOptions());
    ExampleList list(set.pointers.begin(), set.pointers.end());
    const Interrupts interrupts(progress);
    const std::unique_ptr<Learner> learner = makeLearner(s.learner);
    learner->setCallback(traceCallback(interrupts, "training (" + describe(s.learner.kind) + ")",
                                       s.learner.callbacks(static_cast<long>(list.size()))));
    std::vector<FormulatedExample> adapters;
    {
      py::gil_scoped_release release;
      learner->train(formulate(list, s.formulation, adapters));
    }
    return py::make_tuple(weightsArray(learner->weights()),
                          reportOf(learner->passes(), describe(learner->info()) + ": " + learner->message(),
                                   learner->seconds(), learner->formulation(), learner->trace(), learner->traceValueName()));
  }, py::arg("X"), py::arg("Y"), py::arg("labels"), py::arg("settings"), py::arg("progress"));

  m.def("_chain_predict", [](const py::array& w, const py::sequence& X, int labels, bool start_end) {
    const Eigen::VectorXd weights = weightsOf(w, "ChainSSVM.predict");
    const ChainSet set = chainSet(chainData(X, py::none(), labels, "ChainSSVM.predict"), chainOptions(start_end));
    std::vector<std::vector<int>> predicted(set.examples.size());
    {
      py::gil_scoped_release release;
      ThreadPool pool(0);
      pool.parallelFor(set.examples.size(), [&](std::size_t i) { set.examples[i].predict(weights, predicted[i]); });
    }
    py::list out;
    for (const std::vector<int>& p : predicted) out.append(py::array_t<long>(static_cast<py::ssize_t>(p.size()), std::vector<long>(p.begin(), p.end()).data()));
    return out;
  }, py::arg("w"), py::arg("X"), py::arg("labels"), py::arg("start_end"));

  m.def("_chain_errors", [](const py::array& w, const py::sequence& X, const py::sequence& Y, int labels, bool start_end) {
    const Eigen::VectorXd weights = weightsOf(w, "ChainSSVM.score");
    const ChainSet set = chainSet(chainData(X, Y, labels, "ChainSSVM.score"), chainOptions(start_end));
    LabelErrors errors;
    {
      py::gil_scoped_release release;
      ThreadPool pool(0);
      errors = labelErrors(set.pointers, weights, &pool);
    }
    return py::make_tuple(errors.wrong, errors.total);
  }, py::arg("w"), py::arg("X"), py::arg("Y"), py::arg("labels"), py::arg("start_end"));
}

// ---- the multilabel model ----

tools::MultilabelSettings multilabelSettings(const py::object& settings, int states, const std::string& caller) {
  const tools::ConfigNode config = configNode(settings, caller);
  tools::MultilabelSettings s = tools::multilabelSettings(config);
  config.expectKeys({"graph", "inference", "learner", "formulation"});
  s.states = states;
  return s;
}

// The rows of X (n x s) with labellings Y (n x V states), or all-zero labellings of V labels when Y is None.
std::shared_ptr<const MultilabelData> multilabelData(const py::array& X, const py::object& Y, int labels,
                                                     const tools::MultilabelSettings& s, const std::string& caller) {
  const auto x = denseArray<double>(X, caller + ": X", "expected an n x s array of inputs");
  if (x.ndim() != 2 || x.shape(0) < 1) throw InvalidArgument(caller + ": X must be an n x s array of inputs");
  const auto n = static_cast<std::size_t>(x.shape(0));
  std::vector<std::vector<int>> y(n, std::vector<int>(static_cast<std::size_t>(labels), 0));
  if (!Y.is_none()) {
    const auto a = denseArray<long>(Y, caller + ": Y", "expected an n x labels array of states");
    if (a.ndim() != 2 || static_cast<std::size_t>(a.shape(0)) != n || a.shape(1) != labels) {
      throw InvalidArgument(caller + ": Y must be an n x labels array of states (" + std::to_string(n) + " rows like X)");
    }
    for (std::size_t r = 0; r < n; ++r) {
      for (int i = 0; i < labels; ++i) y[r][static_cast<std::size_t>(i)] = static_cast<int>(a.at(r, i));
    }
  }
  Eigen::MatrixXd inputs = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      x.data(), x.shape(0), x.shape(1));
  return std::make_shared<const MultilabelData>(tools::labelGraph(s.graph, labels, s.states), std::move(inputs), std::move(y),
                                                s.model);
}

void bindMultilabel(py::module_& m) {
  m.def("_multilabel_check_settings", [](const py::object& settings, int states) { multilabelSettings(settings, states, "MultilabelSSVM"); },
        py::arg("settings"), py::arg("states"));
  m.def("_multilabel_fit", [](const py::array& X, const py::array& Y, const py::object& lambda, int states,
                              const py::object& settings, const py::object& progress) {
    const tools::MultilabelSettings s = multilabelSettings(settings, states, "MultilabelSSVM");
    const auto labels = py::array::ensure(Y);
    if (!labels || labels.ndim() != 2) throw InvalidArgument("MultilabelSSVM.fit: Y must be an n x labels array of states");
    const tools::MultilabelExamples examples =
        tools::multilabelExamples(multilabelData(X, Y, static_cast<int>(labels.shape(1)), s, "MultilabelSSVM.fit"), s.inference);
    const double lam = lambda.is_none() ? s.learner.lambda() : lambda.cast<double>();
    const Interrupts interrupts(progress);
    const TraceCallback callback = traceCallback(interrupts, "training (" + describe(s.learner.kind) + ")",
                                                 s.learner.callbacks(static_cast<long>(examples.list.size())));
    tools::MultilabelTrained t;
    {
      py::gil_scoped_release release;
      t = tools::trainMultilabel(s, lam, examples.list, callback);
    }
    return py::make_tuple(weightsArray(t.w), reportOf(t.passes, t.info, t.seconds, t.formulation, t.trace, t.trace_value));
  }, py::arg("X"), py::arg("Y"), py::arg("lam"), py::arg("states"), py::arg("settings"), py::arg("progress"));

  m.def("_multilabel_predict", [](const py::array& w, const py::array& X, int labels, int states, const py::object& settings) {
    const Eigen::VectorXd weights = weightsOf(w, "MultilabelSSVM.predict");
    const tools::MultilabelSettings s = multilabelSettings(settings, states, "MultilabelSSVM");
    const tools::MultilabelExamples examples =
        tools::multilabelExamples(multilabelData(X, py::none(), labels, s, "MultilabelSSVM.predict"), s.inference);
    std::vector<std::vector<int>> predicted(examples.typed.size());
    {
      py::gil_scoped_release release;
      ThreadPool pool(0);
      pool.parallelFor(predicted.size(), [&](std::size_t r) { examples.typed[r]->predict(weights, predicted[r]); });
    }
    py::array_t<long> out({static_cast<py::ssize_t>(predicted.size()), static_cast<py::ssize_t>(labels)});
    long* o = out.mutable_data();
    for (std::size_t r = 0; r < predicted.size(); ++r) {
      for (int i = 0; i < labels; ++i) o[r * static_cast<std::size_t>(labels) + static_cast<std::size_t>(i)] = predicted[r][static_cast<std::size_t>(i)];
    }
    return out;
  }, py::arg("w"), py::arg("X"), py::arg("labels"), py::arg("states"), py::arg("settings"));

  m.def("_multilabel_errors", [](const py::array& w, const py::array& X, const py::array& Y, int states, const py::object& settings) {
    const Eigen::VectorXd weights = weightsOf(w, "MultilabelSSVM.score");
    const tools::MultilabelSettings s = multilabelSettings(settings, states, "MultilabelSSVM");
    const auto labels = py::array::ensure(Y);
    if (!labels || labels.ndim() != 2) throw InvalidArgument("MultilabelSSVM.score: Y must be an n x labels array of states");
    const tools::MultilabelExamples examples = tools::multilabelExamples(
        multilabelData(X, Y, static_cast<int>(labels.shape(1)), s, "MultilabelSSVM.score"), s.inference);
    MultilabelErrors errors;
    {
      py::gil_scoped_release release;
      ThreadPool pool(0);
      errors = multilabelErrors(examples.typed, weights, &pool);
    }
    return py::make_tuple(errors.hamming, errors.subset);
  }, py::arg("w"), py::arg("X"), py::arg("Y"), py::arg("states"), py::arg("settings"));

  m.def("validation_folds", [](std::size_t rows, int folds, std::uint64_t seed) {
    return tools::validationFolds(rows, folds, seed);
  }, py::arg("rows"), py::arg("folds") = 5, py::arg("seed") = 1,
        R"(The folds `mmp multilabel` cross-validates lambda on: fold k holds the rows at positions k, k + folds,
... of a seeded shuffle of range(rows) (mmp::Random, the same with every standard library).)");
}

}  // namespace

void bindStructured(py::module_& m) {
  bindChain(m);
  bindMultilabel(m);
}

}  // namespace mmp::python
