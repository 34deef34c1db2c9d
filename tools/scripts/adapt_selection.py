#!/usr/bin/env python3
"""Chooses `mmp adapt`'s settings on the TRAINING areas, by one procedure: bench_adapt --areas train (each
training part's left half taught, its right half scored) for every candidate, and the candidate with the
lowest mean cost ratio averaged over the behaviours and over k in --ks wins.  Linear models choose
--lambda; the LEARCH model (amphibious) chooses --learch-rounds.  The holdout areas are never read.

    tools/scripts/adapt_selection.py build/bin/bench_adapt [--seeds 3] [--pairs 10] [--ks 3 10] [--kinds linear]

--left-out chooses lambda by the better procedure: each training area left out of a model trained by the
shipped model's own procedure (its config and the values its selection chose) on the other training
areas, that model taught on the left-out area's left halves and scored on its right halves (bench_adapt
--areas left-out, one run for every candidate); --folds names the areas left out (default: every one).

    tools/scripts/adapt_selection.py build/bin/bench_adapt --left-out [--folds tile1 tile5] [--lambdas 3 10 30 100 300]
"""
import argparse
import json
import subprocess
import sys

LINEAR = ["follow_road", "hide_in_vegetation", "cross_country"]
LEARCH = ["amphibious"]


def run(bench, behaviours, flag, value, a):
    cmd = [bench, "--areas", "train", "--behaviours", *behaviours, "--seeds", str(a.seeds), "--pairs", str(a.pairs),
           "--ks", *map(str, a.ks), flag, str(value)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = json.loads(out.strip().splitlines()[-1])["rows"]
    scores = [r["adapted"] for r in rows if r["k"] in a.ks]
    return sum(scores) / len(scores), rows


def choose(bench, behaviours, flag, grid, a):
    best = None
    for value in grid:
        score, rows = run(bench, behaviours, flag, value, a)
        zero = sum(r["zero_shot"] for r in rows if r["k"] in a.ks) / len([r for r in rows if r["k"] in a.ks])
        print(f"{flag} {value:>6}: mean cost ratio {score:.4f} (zero-shot {zero:.4f}) over {', '.join(behaviours)}, k in {a.ks}",
              flush=True)
        if best is None or score < best[1]:
            best = (value, score)
    print(f"chosen: {flag} {best[0]}")
    return best[0]


def choose_left_out(bench, behaviours, a):
    cmd = [bench, "--areas", "left-out", "--behaviours", *behaviours, "--seeds", str(a.seeds), "--pairs", str(a.pairs),
           "--ks", "0", *map(str, a.ks), "--lambdas", *map(str, a.lambdas)]
    if a.folds:
        cmd += ["--folds", *a.folds]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = json.loads(out.strip().splitlines()[-1])["rows"]
    best = None
    for value in a.lambdas:
        scores = [r["adapted"] for r in rows if r["lambda"] == value and r["k"] in a.ks]
        zero = [r["zero_shot"] for r in rows if r["lambda"] == value and r["k"] in a.ks]
        score = sum(scores) / len(scores)
        print(f"--lambda {value:>6g}: mean cost ratio {score:.4f} (zero-shot {sum(zero) / len(zero):.4f}) over "
              f"{', '.join(behaviours)}, folds {', '.join(sorted({r['fold'] for r in rows}))}, k in {a.ks}", flush=True)
        if best is None or score < best[1]:
            best = (value, score)
    print(f"chosen: --lambda {best[0]:g}")
    return best[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bench")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--ks", type=int, nargs="+", default=[3, 10])
    p.add_argument("--kinds", choices=["all", "linear", "learch"], default="all")
    p.add_argument("--left-out", action="store_true", help="models trained with each training area left out, taught on it")
    p.add_argument("--folds", nargs="+", default=[], help="--left-out: the training areas left out (default: every one)")
    p.add_argument("--lambdas", type=float, nargs="+", default=[3, 10, 30, 100, 300], help="--left-out: the candidates")
    a = p.parse_args()
    if a.left_out:
        choose_left_out(a.bench, LINEAR, a)
        return 0
    if a.kinds in ("all", "linear"):
        choose(a.bench, LINEAR, "--lambda", [1, 3, 10, 30, 100, 300, 1000], a)
    if a.kinds in ("all", "learch"):
        choose(a.bench, LEARCH, "--learch-rounds", [1, 2, 5, 10], a)


if __name__ == "__main__":
    sys.exit(main())
