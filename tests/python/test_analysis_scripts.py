"""The analysis scripts of tools/ on small hand-made outputs whose answers are known."""

import json
import os
import subprocess
import sys

from conftest import SOURCE_DIR


def run_nested(tmp_path, runs):
    paths = []
    for k, candidates in enumerate(runs):
        path = tmp_path / f"run{k}" / "metrics.json"
        path.parent.mkdir()
        path.write_text(json.dumps({"selection": {"candidates": candidates}}))
        paths.append(str(path))
    out = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "tools", "scripts", "nested_scores.py")] + paths,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def candidate(**areas):
    return {"values": {}, "area_cost_ratio": areas}


def test_nested_scores_picks_on_the_other_areas_and_reads_the_one_left_out(tmp_path):
    # "tailed" is better on three areas of four but has one very bad area; "steady" is a little worse
    # everywhere else.  Leaving out a: the others' mean prefers steady (2.0 < 4.0), their median tailed
    # (1.5 < 2.0), so the median's pick scores tailed's 1.5 on a, the mean's steady's 2.0; and so on.
    steady = candidate(a=2.0, b=2.0, c=2.0, d=2.0)
    tailed = candidate(a=1.5, b=1.5, c=1.5, d=9.0)
    summary = run_nested(tmp_path, [[steady, tailed]])
    assert summary["runs"] == 1
    # Leaving out a, b or c: mean -> steady (2.0), median -> tailed (1.5). Leaving out d: both -> tailed
    # (1.5 < 2.0 on a, b and c) and read 9.0.
    assert abs(summary["mean"]["mean_left_out"] - (3 * 2.0 + 9.0) / 4) < 1e-12
    assert abs(summary["median"]["mean_left_out"] - (3 * 1.5 + 9.0) / 4) < 1e-12
    assert summary["median"]["wins_vs_mean"] == 1 and summary["median"]["losses_vs_mean"] == 0
    assert summary["mean"]["wins_vs_mean"] == 0


def test_nested_scores_skips_runs_it_cannot_use(tmp_path):
    failed = {"values": {}, "area_cost_ratio": {}}  # a candidate whose training failed
    usable = [candidate(a=1.0, b=2.0, c=3.0), candidate(a=2.0, b=1.0, c=3.0)]
    two_areas = [candidate(a=1.0, b=2.0), candidate(a=2.0, b=1.0)]
    summary = run_nested(tmp_path, [usable + [failed], two_areas])
    assert summary["runs"] == 1


def write_pgm(path, width, height, values, comment=True):
    header = f"P5\n{'# made by hand' + chr(10) if comment else ''}{width} {height}\n255\n".encode()
    path.write_bytes(header + bytes(values))
    return str(path)


def run_overlap(*paths):
    return subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "tools", "scripts", "lethal_overlap.py")] + list(paths),
                          capture_output=True, text=True)


def test_lethal_overlap_counts_the_cells_lethal_in_both(tmp_path):
    # Truth: cells 0-3 lethal.  Rule: cells 2-6 lethal (5), 2 of them in the truth: recall 2/4, precision 2/5.
    truth = write_pgm(tmp_path / "truth.pgm", 4, 2, [100, 100, 100, 100, 7, 7, 7, 255])
    rule = write_pgm(tmp_path / "rule.pgm", 4, 2, [0, 0, 100, 100, 100, 100, 100, 255], comment=False)
    out = run_overlap(rule, truth)
    assert out.returncode == 0, out.stderr
    assert "in both: 2" in out.stdout
    assert "recall (share of" in out.stdout and ": 0.500" in out.stdout
    assert ": 0.400" in out.stdout


def test_lethal_overlap_refuses_maps_of_other_grids(tmp_path):
    a = write_pgm(tmp_path / "a.pgm", 4, 2, [0] * 8)
    b = write_pgm(tmp_path / "b.pgm", 2, 4, [0] * 8)
    out = run_overlap(a, b)
    assert out.returncode != 0 and "not the same grid" in out.stderr
    c = tmp_path / "c.pgm"
    c.write_bytes(b"P2\n2 2\n255\n0 0 0 0\n")
    assert "not an 8-bit binary PGM" in run_overlap(str(c), a).stderr
    d = tmp_path / "d.pgm"
    d.write_bytes(b"P5\n4 2")
    assert "header ends early" in run_overlap(str(d), a).stderr


def test_adapt_selection_left_out_chooses_the_lowest_mean_over_behaviours_folds_and_ks(tmp_path):
    # A stand-in for bench_adapt --areas left-out: it records its arguments and prints rows where
    # lambda 10 is best at k = 3 but lambda 100 is best on the mean over k in {3, 10} (and k = 0, the
    # zero-shot rows, must not count).
    rows = []
    for behaviour in ("follow_road", "hide_in_vegetation", "cross_country"):
        for fold in ("tile1", "tile2"):
            for lam, k3, k10 in ((10, 1.0, 3.0), (100, 1.5, 1.5)):
                rows.append({"behaviour": behaviour, "fold": fold, "lambda": float(lam), "k": 0, "adapted": 0.1, "zero_shot": 2.0})
                rows.append({"behaviour": behaviour, "fold": fold, "lambda": float(lam), "k": 3, "adapted": k3, "zero_shot": 2.0})
                rows.append({"behaviour": behaviour, "fold": fold, "lambda": float(lam), "k": 10, "adapted": k10, "zero_shot": 2.0})
    bench = tmp_path / "bench"
    args = tmp_path / "args.txt"
    bench.write_text("#!/bin/sh\necho \"$@\" > " + str(args) + "\necho 'table'\necho '" +
                     json.dumps({"bench": "adapt", "areas": "left-out", "rows": rows}) + "'\n")
    bench.chmod(0o755)
    out = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "tools", "scripts", "adapt_selection.py"), str(bench),
                          "--left-out", "--lambdas", "10", "100", "--folds", "tile1", "tile2"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "chosen: --lambda 100"
    given = args.read_text().split()
    assert given[given.index("--areas") + 1] == "left-out"
    assert given[given.index("--folds") + 1:given.index("--folds") + 3] == ["tile1", "tile2"]
