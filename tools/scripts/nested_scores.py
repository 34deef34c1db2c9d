#!/usr/bin/env python3
"""Which selection score picks settings that do better on an area left out: nested leave-one-area-out
over the candidates of earlier `select:` runs, training areas only.

    tools/scripts/nested_scores.py out/*/metrics.json

For each metrics.json with a `selection` (every candidate's mean cost ratio on each left-out training
area, `area_cost_ratio`): for each training area A, pick among the candidates scored on every area the
one with the lowest score over the other areas, by each score below, and take that candidate's mean on A.
The run's figure for a score is the mean of those over the areas; lower is better.  This asks of a score
what `select:` asks of it on the holdout (choose on some areas, do well on another one), without
reading the holdout.  A candidate's figure on A comes from its model trained without A, but its figures
on the other areas come from models that saw A: the same for every score.

Scores over the other areas' means: mean (about the pooled mean: every area has the same number of
pairs), median, geometric mean, and the mean without the worst area.  The pick is the lowest score, as
`select.rule: lowest`; the paired rule's noise guard is not simulated (it needs every pair's ratio).
Prints a row per run, the wins and losses of each score against the mean, and a JSON line.
Standard library only.
"""
import json
import math
import statistics
import sys

SCORES = {
    "mean": lambda v: sum(v) / len(v),
    "median": statistics.median,
    "geometric": lambda v: math.exp(sum(math.log(x) for x in v) / len(v)),
    "mean_without_worst": lambda v: sum(sorted(v)[:-1]) / (len(v) - 1),
}


def nested(candidates, score):
    areas = sorted(candidates[0]["area_cost_ratio"])
    picked = []
    for left_out in areas:
        others = [a for a in areas if a != left_out]
        best = min(candidates, key=lambda c: score([c["area_cost_ratio"][a] for a in others]))
        picked.append(best["area_cost_ratio"][left_out])
    return sum(picked) / len(picked)


def main(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            selection = json.load(f).get("selection")
        if not selection:
            continue
        usable = [c for c in selection["candidates"] if c.get("area_cost_ratio") and
                  all(v is not None and math.isfinite(v) for v in c["area_cost_ratio"].values())]
        if len(usable) < 2 or len(usable[0]["area_cost_ratio"]) < 3:
            continue  # nothing to choose, or too few areas to leave one out and still take a median
        rows.append((path, len(usable), {name: nested(usable, score) for name, score in SCORES.items()}))
    if not rows:
        sys.exit("nested_scores: no metrics.json with a selection over at least 3 areas and 2 candidates")
    print(f"{'run':<60} {'candidates':>10} " + " ".join(f"{name:>18}" for name in SCORES))
    for path, n, figures in rows:
        print(f"{path[-60:]:<60} {n:>10} " + " ".join(f"{figures[name]:>18.3f}" for name in SCORES))
    summary = {"runs": len(rows)}
    print()
    for name in SCORES:
        gains = [figures["mean"] - figures[name] for _, _, figures in rows]
        wins = sum(g > 1e-9 for g in gains)
        losses = sum(g < -1e-9 for g in gains)
        mean_gain = sum(gains) / len(gains)
        summary[name] = {"mean_left_out": sum(f[name] for _, _, f in rows) / len(rows), "wins_vs_mean": wins,
                         "losses_vs_mean": losses, "mean_gain_vs_mean": mean_gain}
        print(f"{name:<20} mean on the left-out area {summary[name]['mean_left_out']:.3f}; against the mean: "
              f"{wins} runs better, {losses} worse, mean gain {mean_gain:+.4f}")
    print(json.dumps(summary))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
