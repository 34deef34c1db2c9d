#!/usr/bin/env python3
"""Where a run's holdout cost ratio comes from: the pairs.csv of `mmp train` broken down by area and by
whether a plan crosses impassable terrain.

    tools/scripts/pairs_breakdown.py out/follow_road/pairs.csv [more pairs.csv ...]

For each file: the mean cost ratio of each method over all pairs, over the pairs on which every method's
plan stays on passable terrain ("all feasible"), and per area (the image name up to "_image_part");
then the share of each method's total excess cost (ratio - 1, summed over the pairs) that comes from its
infeasible plans, and how far those plans go on impassable terrain (the impassable_px column; files
written before it have none).  Standard library only.
"""
import csv
import sys
from collections import defaultdict


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def breakdown(path):
    pairs = defaultdict(dict)  # (region, pair) -> method -> (ratio, feasible, impassable length or None)
    for row in csv.DictReader(open(path, newline="")):
        crossed = float(row["impassable_px"]) if row.get("impassable_px") else None
        pairs[(row["region"], row["pair"])][row["method"]] = (float(row["cost_ratio"]), row["feasible"] == "1", crossed)
    methods = sorted({m for p in pairs.values() for m in p})
    all_feasible = [k for k, p in pairs.items() if all(f for _, f, _ in p.values())]
    areas = sorted({region.split("_image_part")[0] for region, _ in pairs})
    print(f"{path}: {len(pairs)} pairs, {len(all_feasible)} on which every method's plan is feasible")
    header = f"{'method':12} {'all':>8} {'all feasible':>13} " + " ".join(f"{a:>8}" for a in areas) + f" {'excess from infeasible':>23}"
    print(header)
    for m in methods:
        ratios = [p[m][0] for p in pairs.values() if m in p]
        feasible = [pairs[k][m][0] for k in all_feasible if m in pairs[k]]
        by_area = [mean([p[m][0] for (region, _), p in pairs.items() if m in p and region.startswith(a + "_")]) for a in areas]
        excess = sum(r - 1 for r in ratios)
        infeasible_excess = sum(p[m][0] - 1 for p in pairs.values() if m in p and not p[m][1])
        share = infeasible_excess / excess if excess > 0 else float("nan")
        print(f"{m:12} {mean(ratios):8.3f} {mean(feasible):13.3f} " + " ".join(f"{v:8.3f}" for v in by_area) + f" {share:23.2f}")
    crossings = {m: sorted(p[m][2] for p in pairs.values() if m in p and not p[m][1] and p[m][2] is not None) for m in methods}
    if any(crossings.values()):
        print(f"\n{'method':12} {'infeasible plans':>16}   length on impassable terrain (px): {'p25':>6} {'median':>7} {'p75':>6} {'max':>7}")
        for m in methods:
            c = crossings[m]
            if not c:
                print(f"{m:12} {0:16d}")
                continue
            q = lambda f: c[min(len(c) - 1, int(f * len(c)))]
            print(f"{m:12} {len(c):16d}   {'':35}{q(0.25):6.0f} {q(0.5):7.0f} {q(0.75):6.0f} {c[-1]:7.0f}")
    print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        breakdown(p)
