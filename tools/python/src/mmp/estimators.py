"""Structured max-margin learners with a scikit-learn face: fit(X, Y), predict(X), score(X, Y),
get_params(), set_params(**params).

The learner is a parameter: "online" (Greedy Projection, steps 1/(lambda t)), "batch" (Algorithm 1),
"cutting_plane" (1-slack working set) and, for the multilabel model, "dlpw" (dual loss primal
weights).  Parameters left None take the library's defaults (those of `mmp ocr` / `mmp multilabel`
configs that leave the key out); they are read by the same readers as the configs' keys, so a bad value
raises mmp.ConfigError naming the key.  No likelihood objective exists in the library yet, so none is
offered here.
"""

import inspect

import numpy as np

from . import _mmp


class _Estimator:
    """get_params / set_params / repr from the constructor's keyword arguments (scikit-learn's convention:
    each parameter is stored under its own name and only read in fit)."""

    @classmethod
    def _param_names(cls):
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep=True):  # noqa: ARG002 (scikit-learn's signature; there are no nested estimators)
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise _mmp.InvalidArgument(
                    f"{type(self).__name__}.set_params: unknown parameter '{name}' (valid: {', '.join(valid)})")
            setattr(self, name, value)
        self._check_settings()
        return self

    def _check_settings(self):
        """Refuses settings the learner does not take (seed with learner="batch", ...) now rather than in fit."""

    def __repr__(self):
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if v is not defaults.get(k) and v != defaults.get(k)]
        return f"{type(self).__name__}({', '.join(changed)})"

    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            raise _mmp.InvalidArgument(f"{type(self).__name__}: call fit before predict or score")

    def _learner_section(self, passes_key):
        """The learner's section of a config: lambda, passes and the other parameters that were given."""
        section = dict(self.learner_options or {})
        for key, value in (("lambda", self.lam), (passes_key, self.passes), ("averaging", self.averaging),
                           ("shuffle", self.shuffle), ("seed", self.seed), ("step", self.step),
                           ("step_size", self.step_size), ("threads", self.threads)):
            if value is not None:
                section[key] = value
        return section


def _passes_key(learner):
    return "epochs" if learner in ("online", "dlpw") else "passes" if learner == "bcfw" else "iterations"


class ChainSSVM(_Estimator):
    """A linear-chain structured SVM for sequence labelling (core/tasks/chain.hpp): emission weights per
    label and input feature (+ bias), label transitions and, if start_end, start and end weights;
    Viterbi inference, Hamming loss per position.  What `mmp ocr` trains on Taskar's OCR words.

    X: a list of sequences, each an L x F array of binary input features per position (1 = active, as
    the pixels of the OCR letters; other values raise mmp.InvalidArgument); Y: a list of L-vectors of labels in [0, n_labels).

    learner: "online" | "batch" | "cutting_plane" | "bcfw" (block-coordinate Frank-Wolfe) | "lbfgs" (the
    likelihood only); objective: "margin" (the structured SVM) or "likelihood" (a CRF: forward-backward
    marginals; online, batch or lbfgs); lam: lambda; passes: epochs (online) or iterations;
    averaging: "none" | "uniform" | "late_weighted"; shuffle and seed (online); step ("constant" |
    "gamma_over_t") and step_size (batch); threads; formulation: "margin" | "slack" | "slack_exact" |
    "poslearn"; beta: "one" (every position counts the same) | "by_length" (every sequence);
    n_labels: the label count (default: the largest label in Y + 1); learner_options: any other key of
    the learner's config section (e.g. {"tolerance": 1e-4}).  None: the OCR configs' defaults (online,
    lambda 0.01, 20 epochs, late-weighted averaging, shuffled).

    Fitted: coef_ (the weights), n_labels_, n_features_in_, report_ (passes, info, seconds,
    formulation, trace).  score(X, Y) is the share of positions labelled right, errors(X, Y) the count.
    """

    def __init__(self, learner="online", lam=None, passes=None, averaging=None, shuffle=None, seed=None, step=None,
                 step_size=None, threads=None, formulation="margin", beta="one", start_end=True, n_labels=None,
                 learner_options=None, objective="margin"):
        self.learner = learner
        self.objective = objective
        self.lam = lam
        self.passes = passes
        self.averaging = averaging
        self.shuffle = shuffle
        self.seed = seed
        self.step = step
        self.step_size = step_size
        self.threads = threads
        self.formulation = formulation
        self.beta = beta
        self.start_end = start_end
        self.n_labels = n_labels
        self.learner_options = learner_options
        self._check_settings()

    def _check_settings(self):
        _mmp._chain_check_settings(self._settings())

    def _settings(self):
        return {"learner": self.learner, "objective": self.objective, "formulation": self.formulation, "beta": self.beta,
                "start_end": self.start_end, self.learner: self._learner_section(_passes_key(self.learner))}

    def fit(self, X, Y, progress=None):
        """Trains on sequences X with labels Y; progress(stage, done, total, detail) as for mmp.train.
        The GIL is released while training; Ctrl-C stops it."""
        X, Y = list(X), list(Y)
        if not Y:
            raise _mmp.InvalidArgument("ChainSSVM.fit: Y holds no sequence")
        for i, y in enumerate(Y):  # before np.max, which would reduce a 2-D broadcast view of 10^12 entries
            if np.ndim(y) != 1:
                raise _mmp.InvalidArgument(f"ChainSSVM.fit: Y[{i}]: expected a 1-D array of labels, got {np.ndim(y)} dimensions")
        labels = self.n_labels if self.n_labels is not None else int(max(np.max(y) for y in Y)) + 1
        self.coef_, self.report_ = _mmp._chain_fit(X, Y, labels, self._settings(), progress)
        self.n_labels_ = labels
        self.n_features_in_ = int(np.shape(X[0])[1])
        return self

    def predict(self, X):
        """The label sequence of each sequence of X (Viterbi): a list of int arrays."""
        self._check_fitted()
        return _mmp._chain_predict(self.coef_, list(X), self.n_labels_, self.start_end)

    def errors(self, X, Y):
        """(wrong, total): the positions of X labelled wrong and all positions (`mmp ocr`'s letter error is
        wrong / total)."""
        self._check_fitted()
        return _mmp._chain_errors(self.coef_, list(X), list(Y), self.n_labels_, self.start_end)

    def score(self, X, Y):
        """The share of positions labelled right."""
        wrong, total = self.errors(X, Y)
        return 1.0 - wrong / total


class MultilabelSSVM(_Estimator):
    """The pairwise multilabel model (core/tasks/multilabel.hpp; Meshi et al., ICML 2010): unary weights
    per label, state and input feature (+ bias), pairwise weights per edge of the label graph and state
    pair; normalised Hamming loss.  What `mmp multilabel` trains on Yeast and Scene.

    X: an n x s array of inputs; Y: an n x V array of label states (0/1 for binary labels).

    learner: "dlpw" | "online" | "batch" | "cutting_plane"; lam: lambda; passes: epochs (dlpw, online)
    or iterations; dlpw_passes: DLPW's diffusion passes per visit (R); warm_start (dlpw); averaging,
    shuffle, seed, step, step_size, threads as for ChainSSVM; graph: "complete" | "chain" | "empty";
    inference: "lp" (max-sum diffusion) | "exact" (branch and bound); formulation: "margin" | "slack" |
    "slack_exact" | "poslearn" (not with dlpw; the others need inference "exact"); states: per label;
    learner_options: any other key of the learner's config section.  None: the library's defaults.

    Fitted: coef_, n_labels_, n_features_in_, report_.  score(X, Y) is 1 - the mean normalised Hamming
    loss; hamming_loss and subset_error give the figures `mmp multilabel` prints.
    """

    def __init__(self, learner="dlpw", lam=None, passes=None, dlpw_passes=None, warm_start=None, averaging=None,
                 shuffle=None, seed=None, step=None, step_size=None, threads=None, graph="complete", inference="lp",
                 formulation="margin", states=2, learner_options=None):
        self.learner = learner
        self.lam = lam
        self.passes = passes
        self.dlpw_passes = dlpw_passes
        self.warm_start = warm_start
        self.averaging = averaging
        self.shuffle = shuffle
        self.seed = seed
        self.step = step
        self.step_size = step_size
        self.threads = threads
        self.graph = graph
        self.inference = inference
        self.formulation = formulation
        self.states = states
        self.learner_options = learner_options
        self._check_settings()

    def _check_settings(self):
        _mmp._multilabel_check_settings(self._settings(), self.states)

    def _settings(self, with_learner=True):
        settings = {"graph": self.graph, "inference": self.inference, "formulation": self.formulation}
        if with_learner:
            section = self._learner_section(_passes_key(self.learner))
            section.pop("lambda", None)  # given on its own: it replaces the section's, as in `mmp multilabel`
            if self.dlpw_passes is not None:
                section["passes"] = self.dlpw_passes
            if self.warm_start is not None:
                section["warm_start"] = self.warm_start
            settings["learner"] = {"kind": self.learner, self.learner: section}
        return settings

    def fit(self, X, Y, progress=None):
        """Trains on inputs X (n x s) with label states Y (n x V); progress as for mmp.train."""
        Y = np.asarray(Y)
        self.coef_, self.report_ = _mmp._multilabel_fit(X, Y, self.lam, self.states, self._settings(), progress)
        self.n_labels_ = int(Y.shape[1])
        self.n_features_in_ = int(np.shape(X)[1])
        return self

    def predict(self, X):
        """The labelling of each row of X by the model's inference: an n x V int array."""
        self._check_fitted()
        return _mmp._multilabel_predict(self.coef_, X, self.n_labels_, self.states, self._settings(False))

    def _errors(self, X, Y):
        self._check_fitted()
        return _mmp._multilabel_errors(self.coef_, X, Y, self.states, self._settings(False))

    def hamming_loss(self, X, Y):
        """The mean normalised Hamming loss of the predictions of X against Y."""
        return self._errors(X, Y)[0]

    def subset_error(self, X, Y):
        """The share of rows of X not predicted exactly."""
        return self._errors(X, Y)[1]

    def score(self, X, Y):
        """1 - hamming_loss(X, Y): higher is better, as scikit-learn expects of a score."""
        return 1.0 - self.hamming_loss(X, Y)
