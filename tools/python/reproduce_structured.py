#!/usr/bin/env python3
"""The OCR words and Yeast figures of `mmp ocr` and `mmp multilabel`, reproduced from Python.

For each task this runs the C++ command on a config written from the settings below (those of
configs/ocr_small.yaml and configs/multilabel_yeast.yaml), and the Python module on the same data read
here with NumPy and the same settings: mmp.ChainSSVM over the ten folds of the small protocol (train on
fold k, test on the other nine), and mmp.MultilabelSSVM with lambda chosen by the same 5-fold
cross-validation inside the training rows (mmp.validation_folds), then trained on every training row and
scored on the test rows.  It prints each figure from both sides, says whether they are equal (bit for
bit), prints one JSON line and exits 1 if any figure differs.

    PYTHONPATH=build/python /usr/bin/python3 tools/python/reproduce_structured.py [--mmp build/bin/mmp]
        [--data-root DIR] [--quick]

--quick: OCR fold 0 only and Yeast at lambda 0.1 only (no cross-validation), for the test suite.
The data: <data root>/ocr/letter.data.gz and <data root>/multilabel/yeast/yeast_{train,test}.svm, the
data root being --data-root, $MMP_DATA_ROOT or ../shared/data beside the checkout.
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import mmp

CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# configs/ocr_small.yaml: online Greedy Projection, lambda 0.01, 15 epochs, late-weighted averaging, shuffled.
OCR = {"learner": "online", "lam": 0.01, "passes": 15, "averaging": "late_weighted", "shuffle": True, "seed": 1}
# configs/multilabel_yeast.yaml: DLPW, 30 epochs of R = 10 diffusion passes, warm start; LP inference.
YEAST = {"learner": "dlpw", "passes": 30, "dlpw_passes": 10, "warm_start": True, "seed": 1, "graph": "complete",
         "inference": "lp"}
YEAST_LAMBDAS = [1, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 0.0003]
YEAST_FOLDS, YEAST_SEED = 5, 1


def data_root(flag):
    root = flag or os.environ.get("MMP_DATA_ROOT") or os.path.join(CHECKOUT, "..", "shared", "data")
    return os.path.abspath(root)


def read_ocr_words(path):
    """Taskar's letters (id, letter, next_id, word_id, position, fold, 128 pixels per line) as words:
    a list of L x 128 pixel arrays, a list of label vectors (a = 0) and each word's fold."""
    X, Y, folds = [], [], []
    with gzip.open(path, "rt") as lines:
        for line in lines:
            fields = line.rstrip("\t\r\n").split("\t")
            if not fields[0]:
                continue
            pixels = np.array(fields[6:134], dtype=np.uint8)
            if int(fields[4]) == 1:  # position 1 starts a word
                X.append([]), Y.append([]), folds.append(int(fields[5]))
            X[-1].append(pixels)
            Y[-1].append(ord(fields[1]) - ord("a"))
    return [np.array(x) for x in X], [np.array(y) for y in Y], np.array(folds)


def read_libsvm_multilabel(path, features, labels):
    """LIBSVM multilabel rows ("l1,l2 idx:value ...", 1-based indices): X (n x features), Y (n x labels) 0/1."""
    X, Y = [], []
    with open(path) as lines:
        for line in lines:
            if not line.strip():
                continue
            head, *pairs = line.split()
            x, y = np.zeros(features), np.zeros(labels, dtype=np.int64)
            for label in filter(None, head.split(",")):
                y[int(label)] = 1
            for pair in pairs:
                index, value = pair.split(":")
                x[int(index) - 1] = float(value)
            X.append(x), Y.append(y)
    return np.array(X), np.array(Y)


def run_command(mmp_exe, command, config, workdir):
    """Runs `mmp <command> --config <config as JSON, which YAML reads>`; returns its results.json."""
    path = os.path.join(workdir, command + ".yaml")
    with open(path, "w") as f:
        json.dump(config, f)
    out = os.path.join(workdir, command + "_out")
    done = subprocess.run([mmp_exe, command, "--config", path, "--output-dir", out], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{mmp_exe} {command} failed: {done.stderr.strip().splitlines()[-1]}")
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def ocr_figures(mmp_exe, root, folds, workdir):
    """[(figure, C++ value, Python value)] of the small protocol on `folds`."""
    section = {"lambda": OCR["lam"], "epochs": OCR["passes"], "averaging": OCR["averaging"], "shuffle": OCR["shuffle"],
               "seed": OCR["seed"]}
    cpp = run_command(mmp_exe, "ocr", {"data_root": root, "protocol": "small", "folds": folds, "curve": False,
                                       "learner": OCR["learner"], "online": section}, workdir)
    X, Y, word_folds = read_ocr_words(os.path.join(root, "ocr", "letter.data.gz"))
    rows, python_errors = [], []
    for k, fold in zip(folds, cpp["folds"]):
        train = [i for i in range(len(X)) if word_folds[i] == k]
        test = [i for i in range(len(X)) if word_folds[i] != k]
        model = mmp.ChainSSVM(n_labels=26, **OCR).fit([X[i] for i in train], [Y[i] for i in train])
        wrong, total = model.errors([X[i] for i in test], [Y[i] for i in test])
        train_wrong, train_total = model.errors([X[i] for i in train], [Y[i] for i in train])
        python_errors.append(wrong / total)
        rows.append((f"OCR small, fold {k}: training letter error", fold["train_error"], train_wrong / train_total))
        rows.append((f"OCR small, fold {k}: test letter error", fold["test_error"], wrong / total))
    rows.append(("OCR small: mean test letter error", cpp["mean_test_error"], sum(python_errors) / len(python_errors)))
    return rows


def yeast_figures(mmp_exe, root, lambdas, workdir):
    """[(figure, C++ value, Python value)] of Yeast with lambda chosen among `lambdas`."""
    section = {"epochs": YEAST["passes"], "passes": YEAST["dlpw_passes"], "warm_start": YEAST["warm_start"],
               "seed": YEAST["seed"]}
    cpp = run_command(mmp_exe, "multilabel", {
        "data_root": root, "train": {"libsvm": "multilabel/yeast/yeast_train.svm"},
        "test": {"libsvm": "multilabel/yeast/yeast_test.svm"}, "features": 103, "labels": 14,
        "graph": YEAST["graph"], "inference": YEAST["inference"], "learner": {"kind": YEAST["learner"], "dlpw": section},
        "validation": {"lambdas": lambdas, "folds": YEAST_FOLDS, "seed": YEAST_SEED}}, workdir)
    X, Y = read_libsvm_multilabel(os.path.join(root, "multilabel", "yeast", "yeast_train.svm"), 103, 14)
    X_test, Y_test = read_libsvm_multilabel(os.path.join(root, "multilabel", "yeast", "yeast_test.svm"), 103, 14)
    rows, lam = [], lambdas[0]
    if len(lambdas) > 1:  # as `mmp multilabel`: the lowest Hamming loss pooled over the folds, the first on a tie
        folds = mmp.validation_folds(len(X), YEAST_FOLDS, YEAST_SEED)
        best = None
        for candidate, cpp_row in zip(lambdas, cpp["validation"]):
            hamming = subset = 0.0
            for k, held in enumerate(folds):
                fit = [r for j, rows_j in enumerate(folds) if j != k for r in rows_j]
                model = mmp.MultilabelSSVM(lam=candidate, **YEAST).fit(X[fit], Y[fit])
                hamming += model.hamming_loss(X[held], Y[held]) * len(held)
                subset += model.subset_error(X[held], Y[held]) * len(held)
            hamming, subset = hamming / len(X), subset / len(X)
            rows.append((f"Yeast, lambda {candidate:g}: held-out Hamming loss", cpp_row["hamming"], hamming))
            rows.append((f"Yeast, lambda {candidate:g}: held-out subset error", cpp_row["subset_error"], subset))
            if best is None or hamming < best[1]:
                best = (candidate, hamming)
        lam = best[0]
    rows.append(("Yeast: lambda chosen", cpp["lambda"], lam))
    model = mmp.MultilabelSSVM(lam=lam, **YEAST).fit(X, Y)
    rows.append(("Yeast: training Hamming loss", cpp["train_hamming"], model.hamming_loss(X, Y)))
    rows.append(("Yeast: test Hamming loss", cpp["test_hamming"], model.hamming_loss(X_test, Y_test)))
    rows.append(("Yeast: test subset error", cpp["test_subset_error"], model.subset_error(X_test, Y_test)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mmp", default=os.path.join(CHECKOUT, "build", "bin", "mmp"), help="the mmp executable")
    parser.add_argument("--data-root", default="", help="folder holding ocr/ and multilabel/")
    parser.add_argument("--quick", action="store_true", help="OCR fold 0 and Yeast at lambda 0.1 only")
    args = parser.parse_args()
    root = data_root(args.data_root)
    with tempfile.TemporaryDirectory() as workdir:
        rows = ocr_figures(args.mmp, root, [0] if args.quick else list(range(10)), workdir)
        rows += yeast_figures(args.mmp, root, [0.1] if args.quick else YEAST_LAMBDAS, workdir)
    print(f"{'figure':52} {'mmp (C++)':>12} {'Python':>12}  equal")
    for name, cpp, python in rows:
        print(f"{name:52} {cpp:12.6f} {python:12.6f}  {'yes' if cpp == python else 'NO'}")
    differ = [name for name, cpp, python in rows if cpp != python]
    headline = {name: [cpp, python] for name, cpp, python in rows if name.startswith(("OCR small:", "Yeast:"))}
    print(json.dumps({"figures": len(rows), "equal": len(rows) - len(differ), "differ": differ, "headline": headline}))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
