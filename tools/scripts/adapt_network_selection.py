#!/usr/bin/env python3
"""Chooses `mmp adapt`'s network settings (adapt.network_*: the whole network or its head, the step, the
proximal lambda) on TRAINING areas only, by the protocol "beside" of docs/teaching.md: in each training
area, the left halves of its parts are taught (demonstrations generated on their labels), the right
halves are scored (seeded pairs, mean cost ratio), the parent network model beside the adapted one.  The
holdout tiles (3 and 8) are never read.  The candidate with the lowest mean cost ratio over the areas
and seeds wins (ties to the earlier candidate).

    tools/scripts/adapt_network_selection.py build/bin/mmp MODEL.mmp configs/cross_country.yaml \
        [--areas 1 2 4 5 6] [--parts 002 005] [--per-region 2] [--seeds 1] [--pairs 10] [--epochs 10]

MODEL.mmp: a network model trained on the base config's training areas (e.g. `mmp train
configs/network/cross_country.yaml`); the base config lends the classes, behaviour and data root.  The
halves are cut with gdal_translate into a temporary folder.  Prints one line per candidate and a JSON
line with every run's figures; then the table: per candidate the mean cost ratio, the parent's, the
gain over the parent with a 95 % bootstrap interval over the runs (area x seed; seeded), the slowest
teaching step.  `--summary LOG` prints that table again from a saved output.
"""
import random
import shutil
import argparse
import json
import os
import subprocess
import sys
import tempfile

CANDIDATES = [  # (head_only, step, lambda): each step's shrink toward the parent is 1 / (1 + step lambda)
    (head, step, lam) for head in (False, True) for step in (1e-3, 1e-2) for lam in (10, 100, 1000)
]


def size(path):
    out = subprocess.run(["gdalinfo", path], check=True, capture_output=True, text=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("Size is"))
    w, h = line[len("Size is "):].split(",")
    return int(w), int(h)


def cut(src, dst, x, width, height):
    subprocess.run(["gdal_translate", "-q", "-of", "PNG", "-srcwin", str(x), "0", str(width), str(height), src, dst], check=True)
    if os.path.exists(dst + ".aux.xml"):
        os.remove(dst + ".aux.xml")


def halves(data, tile, part, folder):
    name = f"tile{tile}_image_part_{part}"
    image = os.path.join(data, "aerial/dubai_hitl/images", name + ".jpg")
    labels = os.path.join(data, "aerial/dubai_hitl/labels_index", name + ".png")
    w, h = size(image)
    half = w // 2
    out = {}
    for side, x, width in (("left", 0, half), ("right", half, w - half)):
        out[side] = (os.path.join(folder, f"{name}_{side}.png"), os.path.join(folder, f"{name}_{side}_labels.png"))
        cut(image, out[side][0], x, width, h)
        cut(labels, out[side][1], x, width, h)
    return out


def run(a, config, output, candidate, seed):
    head, step, lam = candidate
    cmd = ["nice", a.mmp, "adapt", a.model, config, "--output-dir", output,
           "--set", f"adapt.network_head_only={'true' if head else 'false'}", "--set", f"adapt.network_step={step}",
           "--set", f"adapt.network_lambda={lam}", "--set", f"adapt.network_epochs={a.epochs}",
           "--set", f"demonstrations.seed={seed}", "--set", f"adapt.threads={a.threads}"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(os.path.join(output, "metrics.json")) as f:
        m = json.load(f)
    seconds = [t["seconds"] for t in m["teaching"]]
    return m["methods"]["learned"]["cost_ratio_mean"], m["methods"]["parent"]["cost_ratio_mean"], max(seconds)


def name(head, step, lam):
    return f"{'head' if head else 'whole'}, step {step:g}, lambda {lam:g}"


def summary(records):
    """The table of the runs' figures, one row per candidate in the order run."""
    order = []
    for r in records:
        key = (r["head_only"], r["step"], r["lambda"])
        if key not in order:
            order.append(key)
    print("| candidate | mean cost ratio | parent | gain over the parent [95 % interval] | slowest step (s) |")
    print("|---|---:|---:|---|---:|")
    for key in order:
        runs = [r for r in records if (r["head_only"], r["step"], r["lambda"]) == key]
        gains = [r["parent"] - r["adapted"] for r in runs]
        rng = random.Random(1)
        means = sorted(sum(rng.choice(gains) for _ in gains) / len(gains) for _ in range(10000))
        mean = lambda v: sum(v) / len(v)
        print(f"| {name(*key)} | {mean([r['adapted'] for r in runs]):.4f} | {mean([r['parent'] for r in runs]):.4f} | "
              f"{mean(gains):+.3f} [{means[250]:.3f}, {means[9750]:.3f}] | {max(r['slowest_step_s'] for r in runs):.2f} |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        with open(sys.argv[2]) as f:
            summary(json.loads(next(l for l in f if l.startswith("{")))["runs"])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mmp")
    p.add_argument("model")
    p.add_argument("base", help="the train config the model was trained by (classes, behaviour, data_root)")
    p.add_argument("--data-root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/data"))
    p.add_argument("--areas", nargs="+", default=["1", "2", "4", "5", "6"], help="training tiles only")
    p.add_argument("--parts", nargs="+", default=["002", "005"])
    p.add_argument("--per-region", type=int, default=2, help="demonstrations per left half")
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--pairs", type=int, default=10, help="scored pairs per right half")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--candidates", type=int, nargs="+", help="indices into the candidate list (default: all)")
    a = p.parse_args()
    if any(t in ("3", "8") for t in a.areas):
        sys.exit("tiles 3 and 8 are the holdout: choose on training areas only")
    folder = tempfile.mkdtemp(prefix="mmp-adapt-network-")
    configs = []
    for tile in a.areas:
        parts = [halves(a.data_root, tile, part, folder) for part in a.parts]
        config = os.path.join(folder, f"tile{tile}.yaml")
        with open(config, "w") as f:
            f.write(f"base: {os.path.abspath(a.base)}\ndata_root: {os.path.abspath(a.data_root)}\n")
            f.write("teach:\n" + "".join(f"  - {{image: {h['left'][0]}, labels: {h['left'][1]}}}\n" for h in parts))
            f.write("holdout:\n" + "".join(f"  - {{image: {h['right'][0]}, labels: {h['right'][1]}}}\n" for h in parts))
            f.write(f"demonstrations: {{per_region: {a.per_region}, min_separation_px: 250, seed: 1}}\n")
            f.write(f"evaluation: {{pairs: {a.pairs}, min_separation_px: 250, seed: 7}}\n")
            f.write("adapt: {held_out: false}\n")
        configs.append((tile, config))
    chosen = [CANDIDATES[i] for i in a.candidates] if a.candidates else CANDIDATES
    records, best = [], None
    for candidate in chosen:
        scores, parents, slowest = [], [], 0.0
        for tile, config in configs:
            for seed in range(1, a.seeds + 1):
                learned, parent, seconds = run(a, config, os.path.join(folder, "out"), candidate, seed)
                scores.append(learned)
                parents.append(parent)
                slowest = max(slowest, seconds)
                records.append({"head_only": candidate[0], "step": candidate[1], "lambda": candidate[2], "tile": tile, "seed": seed,
                                "adapted": learned, "parent": parent, "slowest_step_s": seconds})
        mean, zero = sum(scores) / len(scores), sum(parents) / len(parents)
        print(f"{'head' if candidate[0] else 'whole'} step {candidate[1]:g} lambda {candidate[2]:g}: mean cost ratio {mean:.4f} "
              f"(parent {zero:.4f}) over tiles {' '.join(a.areas)}, {a.seeds} seed(s); slowest step {slowest:.2f} s", flush=True)
        if best is None or mean < best[1]:
            best = (candidate, mean)
    print(f"chosen: {'head only' if best[0][0] else 'whole network'}, step {best[0][1]:g}, lambda {best[0][2]:g}")
    print(json.dumps({"runs": records}))
    summary(records)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
