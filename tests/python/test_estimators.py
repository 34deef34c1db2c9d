"""mmp.ChainSSVM and mmp.MultilabelSSVM: the scikit-learn face, every learner, and errors."""

import numpy as np
import pytest

import mmp


def chain_problem(seed, sequences=60, features=12, labels=3):
    """Sequences whose label at each position is the argmax of a fixed linear map of its binary features."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=(features, labels))
    X, Y = [], []
    for _ in range(sequences):
        x = (rng.random((rng.integers(3, 9), features)) < 0.3).astype(np.uint8)
        X.append(x)
        Y.append(np.argmax(x @ truth + 1e-9 * np.arange(labels), axis=1))
    return X, Y


def multilabel_problem(seed, rows=120, features=6, labels=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, features))
    Y = (X @ rng.normal(size=(features, labels)) > 0).astype(np.int64)
    return X, Y


def test_params_follow_scikit_learns_conventions():
    model = mmp.ChainSSVM(learner="batch", lam=0.1, passes=30)
    params = model.get_params()
    assert params["learner"] == "batch" and params["lam"] == 0.1 and params["passes"] == 30 and params["shuffle"] is None
    clone = type(model)(**params)
    assert clone.get_params() == params and repr(clone) == "ChainSSVM(learner='batch', lam=0.1, passes=30)"
    assert model.set_params(lam=0.2, passes=5) is model and model.lam == 0.2
    with pytest.raises(mmp.InvalidArgument, match="unknown parameter 'lambda'"):
        model.set_params(**{"lambda": 1.0})
    assert set(mmp.MultilabelSSVM().get_params()) >= {"learner", "lam", "graph", "inference", "formulation"}


@pytest.mark.parametrize("learner, objective", [("online", "margin"), ("batch", "margin"), ("cutting_plane", "margin"),
                                                ("bcfw", "margin"), ("online", "likelihood"), ("batch", "likelihood")])
def test_every_chain_learner_fits_a_realisable_problem(learner, objective):
    X, Y = chain_problem(1)
    model = mmp.ChainSSVM(learner=learner, objective=objective, lam=1e-3, passes=40).fit(X[:40], Y[:40])
    assert model.coef_.shape == ((12 + 1) * 3 + 3 * 3 + 2 * 3,) and model.n_labels_ == 3 and model.n_features_in_ == 12
    assert model.score(X[:40], Y[:40]) > 0.85 and model.score(X[40:], Y[40:]) > 0.75
    assert model.report_["passes"] == 40 and len(model.report_["trace"]["value"]) > 0


def test_chain_predictions_agree_with_errors_and_fits_repeat():
    X, Y = chain_problem(2)
    model = mmp.ChainSSVM(passes=10).fit(X, Y)
    predicted = model.predict(X)
    assert [len(p) for p in predicted] == [len(y) for y in Y]
    wrong = sum(int(np.sum(p != y)) for p, y in zip(predicted, Y))
    assert model.errors(X, Y) == (wrong, sum(len(y) for y in Y))
    assert np.array_equal(mmp.ChainSSVM(passes=10).fit(X, Y).coef_, model.coef_)  # seeded: the same weights


def test_chain_errors_name_the_parameter_and_the_sequence():
    X, Y = chain_problem(3)
    with pytest.raises(mmp.ConfigError, match="ChainSSVM: online.lambda: expected a finite number"):
        mmp.ChainSSVM(lam=-1.0).fit(X, Y)
    with pytest.raises(mmp.ConfigError, match="ChainSSVM: batch.shuffle: unknown key"):
        mmp.ChainSSVM(learner="batch", shuffle=True).fit(X, Y)
    with pytest.raises(mmp.ConfigError, match="ChainSSVM: learner: 'dlpw' is not one of: online, batch, cutting_plane, bcfw"):
        mmp.ChainSSVM(learner="dlpw").fit(X, Y)
    with pytest.raises(mmp.ConfigError, match="trains the margin objective only"):
        mmp.ChainSSVM(learner="cutting_plane", objective="likelihood").fit(X, Y)
    with pytest.raises(mmp.InvalidArgument, match=r"ChainSSVM.fit: Y\[2\]: expected \d+ labels"):
        mmp.ChainSSVM().fit(X, Y[:2] + [Y[2][:-1]] + Y[3:])
    with pytest.raises(mmp.InvalidArgument, match="ChainSSVM.fit: sequence 0: .*label"):
        mmp.ChainSSVM(n_labels=2).fit(X, Y)
    with pytest.raises(mmp.InvalidArgument, match="call fit before predict"):
        mmp.ChainSSVM().predict(X)


@pytest.mark.parametrize("learner", ["dlpw", "online", "batch", "cutting_plane"])
def test_every_multilabel_learner_fits_and_scores(learner):
    X, Y = multilabel_problem(4)
    model = mmp.MultilabelSSVM(learner=learner, lam=0.01, passes=20).fit(X[:80], Y[:80])
    assert model.n_labels_ == 4 and model.n_features_in_ == 6
    predicted = model.predict(X[80:])
    assert predicted.shape == (40, 4) and set(np.unique(predicted)) <= {0, 1}
    assert model.hamming_loss(X[80:], Y[80:]) == pytest.approx(np.mean(predicted != Y[80:]), rel=1e-12)
    assert model.subset_error(X[80:], Y[80:]) == pytest.approx(np.mean(np.any(predicted != Y[80:], axis=1)), rel=1e-12)
    assert model.score(X[:80], Y[:80]) > 0.85


def test_multilabel_exact_inference_and_formulations_and_their_errors():
    X, Y = multilabel_problem(5, rows=60, labels=3)
    exact = mmp.MultilabelSSVM(learner="batch", lam=0.01, passes=10, inference="exact", formulation="slack").fit(X, Y)
    assert exact.report_["formulation"] == "slack" and exact.score(X, Y) > 0.8
    with pytest.raises(mmp.ConfigError, match="formulation: DLPW optimises margin scaling only"):
        mmp.MultilabelSSVM(formulation="slack", inference="exact").fit(X, Y)
    with pytest.raises(mmp.ConfigError, match="MultilabelSSVM: graph: 'tree' is not one of: complete, chain, empty"):
        mmp.MultilabelSSVM(graph="tree").fit(X, Y)
    with pytest.raises(mmp.InvalidArgument, match="MultilabelSSVM.fit: Y must be an n x labels array"):
        mmp.MultilabelSSVM().fit(X, Y[:10])
    assert mmp.validation_folds(10, 3, 1) == mmp.validation_folds(10, 3, 1)
    assert sorted(r for fold in mmp.validation_folds(10, 3, 1) for r in fold) == list(range(10))


def test_lbfgs_fits_the_crf_and_refuses_the_margin():
    X, Y = chain_problem(1)
    model = mmp.ChainSSVM(learner="lbfgs", objective="likelihood", lam=1e-3, passes=200).fit(X[:40], Y[:40])
    assert model.score(X[:40], Y[:40]) > 0.85 and model.score(X[40:], Y[40:]) > 0.75
    assert model.report_["info"].startswith("Success")
    with pytest.raises(mmp.ConfigError, match="lbfgs trains the likelihood objective only"):
        mmp.ChainSSVM(learner="lbfgs").fit(X, Y)


def test_settings_the_learner_does_not_take_are_refused_at_construction_not_in_fit():
    # seed= with learner="batch" was accepted by the constructor and refused by fit (issue 57).
    with pytest.raises(mmp.ConfigError, match="batch.seed: unknown key"):
        mmp.ChainSSVM(learner="batch", seed=3)
    with pytest.raises(mmp.ConfigError, match="learner.batch.seed: unknown key"):
        mmp.MultilabelSSVM(learner="batch", seed=3)
    model = mmp.ChainSSVM(learner="batch")
    with pytest.raises(mmp.ConfigError, match="batch.seed: unknown key"):
        model.set_params(seed=2)
    assert mmp.ChainSSVM(learner="online", seed=3).seed == 3


def test_chain_features_other_than_0_and_1_are_refused_by_position():
    # Real values were taken as 1 without a word: 0.366 where the largest raw feature scored 0.818.
    X = [np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[0.25, 1.0]])]
    Y = [np.array([0, 1]), np.array([1])]
    with pytest.raises(mmp.InvalidArgument, match=r"X\[1\]\[0, 0\] = 0.25: the chain's features are binary"):
        mmp.ChainSSVM(passes=1).fit(X, Y)
    fitted = mmp.ChainSSVM(passes=1).fit(X[:1], Y[:1])
    with pytest.raises(mmp.InvalidArgument, match="the chain's features are binary"):
        fitted.predict([np.array([[3.0, 0.0]])])
