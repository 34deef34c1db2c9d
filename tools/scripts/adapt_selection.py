#!/usr/bin/env python3
"""Chooses `mmp adapt`'s settings on the TRAINING areas, by one procedure: bench_adapt --areas train (each
training part's left half taught, its right half scored) for every candidate, and the candidate with the
lowest mean cost ratio averaged over the behaviours and over k in --ks wins.  Linear models choose
--lambda; the LEARCH model (amphibious) chooses --learch-rounds.  The holdout areas are never read.

    tools/scripts/adapt_selection.py build/bin/bench_adapt [--seeds 3] [--pairs 10] [--ks 3 10] [--kinds linear]
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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bench")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--ks", type=int, nargs="+", default=[3, 10])
    p.add_argument("--kinds", choices=["all", "linear", "learch"], default="all")
    a = p.parse_args()
    if a.kinds in ("all", "linear"):
        choose(a.bench, LINEAR, "--lambda", [1, 3, 10, 30, 100, 300, 1000], a)
    if a.kinds in ("all", "learch"):
        choose(a.bench, LEARCH, "--learch-rounds", [1, 2, 5, 10], a)


if __name__ == "__main__":
    sys.exit(main())
