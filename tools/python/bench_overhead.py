#!/usr/bin/env python3
"""What the Python layer adds to CostModel.costs and plan: each call timed from Python against the same
library call timed in C++ (mmp._mmp._bench) on the same data in the same process, back to back in each
round, which of the two goes first alternating.  The overhead is the median over the rounds of (Python / C++ - 1) of each round's pair,
which ran back to back under the same load; the fastest round of each is printed too, and for plan the
share of the Python call's time spent outside the library call.  Prints a table and one JSON line.

    PYTHONPATH=build/python /usr/bin/python3 tools/python/bench_overhead.py [--model M] [--image I] [--repeats N]

The image: --image, else tile8_image_part_001.jpg of the Dubai set (2149 x 1480 px, 3.2 Mpx) under the data
root ($MMP_DATA_ROOT or ../shared/data beside the checkout), else a 1792 x 1792 synthetic scene.  The
model: --model, else one trained here on two synthetic scenes with configs/dubai_whole_area.yaml's
features (what a model of the real behaviours computes per pixel).  Planning: corner to corner on the
image's learned cost map and on a 3 Mcell grid of random costs, given as a CostGrid (no copy) and as a
float64 array (copied into a grid at each call).
"""

import argparse
import json
import os
import statistics
import time

import numpy as np

import mmp

CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FEATURES = {"cell_size": 4, "blur_sigmas": [0, 4, 12], "colour_spaces": ["rgb", "hsv", "lab"], "gradient": True,
            "texture_windows": [7], "bins": 9}


def synthetic_model():
    behaviour = {"name": "follow_road", "preferred": "Road",
                 "costs": {"Road": 1, "Land": 5, "Vegetation": 5, "Building": 10, "Water": "inf"}}
    scenes = [mmp.synthetic_scene(seed=s) for s in (1, 2)]
    return mmp.train([{"image": i, "labels": l} for i, l in scenes], classes=mmp.synthetic_classes(),
                     behaviour=behaviour, features=FEATURES, demonstrations={"per_region": 6},
                     learner={"kind": "batch", "batch": {"iterations": 20}}).model


def compare(name, cpp_call, python_call, repeats):
    """(name, C++ seconds, Python seconds, Python seconds outside the library call) of each round: the two
    calls back to back, the C++ one first in even rounds and second in odd ones (what runs first pays for
    fresh memory pages differently).  The last is known for plan, whose Plan.seconds is the library call's
    own time (the planner's construction and search, timed in C++ inside the call)."""
    cpp, python, outside = [], [], []
    for round_ in range(repeats):
        if round_ % 2 == 0:
            cpp.append(cpp_call())
        start = time.perf_counter()
        result = python_call()
        python.append(time.perf_counter() - start)
        if round_ % 2 == 1:
            cpp.append(cpp_call())
        if isinstance(result, mmp.Plan):
            outside.append(python[-1] - result.seconds)
    return name, cpp, python, outside


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a model file (default: one trained here on synthetic scenes)")
    parser.add_argument("--image", help="an image of about 3 Mpx (default: tile8_image_part_001.jpg)")
    parser.add_argument("--repeats", type=int, default=25)
    args = parser.parse_args()
    root = os.environ.get("MMP_DATA_ROOT") or os.path.join(CHECKOUT, "..", "shared", "data")
    dubai = os.path.join(root, "aerial", "dubai_hitl", "images", "tile8_image_part_001.jpg")
    image_name = args.image or (dubai if os.path.exists(dubai) else None)
    rgb = mmp.load_image(image_name) if image_name else mmp.synthetic_scene(seed=5, rows=1792, cols=1792)[0]
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    model = mmp.CostModel.load(args.model) if args.model else synthetic_model()
    grid = model.cost_grid(bgr, channels="bgr")
    random_costs = np.random.default_rng(1).uniform(1.0, 10.0, size=(1732, 1732))
    random_grid = mmp.CostGrid(random_costs)
    corner = lambda g: g.rows * g.cols - 1  # noqa: E731  (the goal cell r * cols + c of the far corner)

    r = args.repeats
    rows = [
        compare("CostModel.costs, RGB array (converted to BGR)",
                lambda: mmp._mmp._bench.costs_seconds(model, bgr, 1)[0], lambda: model.costs(rgb), r),
        compare("CostModel.costs, BGR array (read in place)",
                lambda: mmp._mmp._bench.costs_seconds(model, bgr, 1)[0], lambda: model.costs(bgr, channels="bgr"), r),
        compare(f"plan A*, learned map {grid.rows} x {grid.cols}, CostGrid",
                lambda: mmp._mmp._bench.plan_seconds(grid, 0, corner(grid), 1)[0],
                lambda: mmp.plan(grid, (0, 0), (grid.rows - 1, grid.cols - 1)), r),
        compare("plan A*, 1732 x 1732 random costs, CostGrid",
                lambda: mmp._mmp._bench.plan_seconds(random_grid, 0, corner(random_grid), 1)[0],
                lambda: mmp.plan(random_grid, (0, 0), (1731, 1731)), r),
        compare("plan A*, 1732 x 1732 random costs, float64 array",
                lambda: mmp._mmp._bench.plan_seconds(random_grid, 0, corner(random_grid), 1)[0],
                lambda: mmp.plan(random_costs, (0, 0), (1731, 1731)), r),
    ]
    megapixels = rgb.shape[0] * rgb.shape[1] / 1e6
    megapixels = rgb.shape[0] * rgb.shape[1] / 1e6
    print(f"image {image_name or 'synthetic scene'}: {rgb.shape[1]} x {rgb.shape[0]} px ({megapixels:.2f} Mpx); "
          f"model: {args.model or 'trained on synthetic scenes'} ({len(model.weights)} features, cells of {model.cell_size} px); "
          f"{r} interleaved rounds")
    print(f"{'call':52} {'overhead':>9} {'C++ min (s)':>12} {'Python min (s)':>15} {'outside the call':>17}")
    summary = {"megapixels": round(megapixels, 3), "repeats": r}
    for name, cpp, python, outside in rows:
        overhead = statistics.median(p / c - 1.0 for c, p in zip(cpp, python))
        share = statistics.median(o / p for o, p in zip(outside, python)) if outside else None
        shown = f"{100 * share:15.2f} %" if outside else f"{'-':>17}"
        print(f"{name:52} {100 * overhead:7.1f} % {min(cpp):12.4f} {min(python):15.4f} {shown}")
        summary[name] = {"overhead": round(overhead, 4), "cpp_min_s": round(min(cpp), 5), "python_min_s": round(min(python), 5)}
        if outside:
            summary[name]["outside_call_share"] = round(share, 5)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
