#!/usr/bin/env python3
"""Demonstrations a person on site would drive, made from a class-index label mask: A* on a behaviour's
class costs between seeded start/goal pairs, written as the `path,x,y` pixel CSV `mmp adapt` and
`mmp train` read.  Needs the mmp Python module (PYTHONPATH=build/python, Debian's /usr/bin/python3).

    PYTHONPATH=build/python /usr/bin/python3 tools/scripts/label_demonstrations.py \\
        LABELS_INDEX.png OUT.csv --costs 10,5,1,5,inf,5 --count 4 --seed 1 --columns 0,0.5

--costs gives each class index's cost (inf: impassable; here Building, Land, Road, Vegetation, Water,
Unlabeled for follow_road); a cell costs the mean of its pixels' costs.  --columns keeps both ends in a
band of the image's width (0,0.5: the left half), so that another band can be scored untaught.
"""
import argparse
import math

import numpy as np

import mmp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels")
    parser.add_argument("out")
    parser.add_argument("--costs", required=True, help="cost of class index 0, 1, ... (inf: impassable)")
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cell-size", type=int, default=4)
    parser.add_argument("--min-separation-px", type=float, default=250.0)
    parser.add_argument("--columns", default="0,1", help="the band of the width both ends lie in, as shares")
    a = parser.parse_args()
    cost_of = np.array([float(c) for c in a.costs.split(",")])
    labels = mmp.load_image(a.labels, channels="bgr")[:, :, 0]
    if labels.max() >= len(cost_of):
        raise SystemExit(f"{a.labels}: class index {labels.max()} has no cost in --costs ({len(cost_of)} given)")
    k = a.cell_size
    rows, cols = labels.shape[0] // k, labels.shape[1] // k
    costs = cost_of[labels[:rows * k, :cols * k]].reshape(rows, k, cols, k).mean(axis=(1, 3))
    lo, hi = (float(s) for s in a.columns.split(","))
    c0, c1 = int(lo * cols), max(int(lo * cols) + 1, int(hi * cols))
    rng = np.random.default_rng(a.seed)
    lines, n, tries = ["path,x,y"], 0, 0
    while n < a.count:
        tries += 1
        if tries > 10000 * a.count:
            raise SystemExit(f"{a.labels}: found {n} of {a.count} pairs; lower --min-separation-px or widen --columns")
        s = (int(rng.integers(0, rows)), int(rng.integers(c0, c1)))
        g = (int(rng.integers(0, rows)), int(rng.integers(c0, c1)))
        if not (np.isfinite(costs[s]) and np.isfinite(costs[g])) or math.hypot(s[0] - g[0], s[1] - g[1]) * k < a.min_separation_px:
            continue
        plan = mmp.plan(costs, s, g)
        if plan.status != "success":
            continue
        n += 1
        lines += [f"{n},{c * k + k / 2:g},{r * k + k / 2:g}" for r, c in plan.path]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {a.out}: {n} paths on {rows} x {cols} cells of {k} px")


if __name__ == "__main__":
    main()
