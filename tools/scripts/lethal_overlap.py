#!/usr/bin/env python3
"""How well one Nav2 map's lethal cells find another's: the cells marked lethal (100) in both.

    tools/scripts/lethal_overlap.py RULE/map.pgm TRUTH/map.pgm

RULE is a map whose obstacles come from a cost rule (`mmp costmap --nav2 RULE --lethal-quantile 0.7`),
TRUTH one made from a mask of the same image (`--nav2 TRUTH --lethal-mask labels.png --lethal-values 4`;
its other cells carry the same costs).  Prints the share of TRUTH's lethal cells that RULE marks
(recall) and the share of RULE's lethal cells that TRUTH marks (precision).  Reads binary PGM (P5,
8 bits), as mmp writes; standard library only.
"""
import sys

LETHAL = 100


def read_pgm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval; '#' starts a comment to the end of its line
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        if pos >= len(data):
            sys.exit(f"{path}: the PGM header ends early")
        end = pos
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P5" or not all(f.isdigit() for f in fields[1:]) or int(fields[3]) > 255:
        sys.exit(f"{path}: not an 8-bit binary PGM (P5)")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + width * height]
    if len(pixels) != width * height:
        sys.exit(f"{path}: {len(pixels)} pixels, the header says {width} x {height}")
    return width, height, pixels


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    rule, truth = read_pgm(argv[1]), read_pgm(argv[2])
    if rule[:2] != truth[:2]:
        sys.exit(f"{argv[1]} is {rule[0]} x {rule[1]} cells, {argv[2]} {truth[0]} x {truth[1]}: not the same grid")
    # mode raw (map.yaml): a pixel's grey level is the occupancy value itself; 100 is lethal.
    marked = [a == LETHAL for a in rule[2]]
    true = [b == LETHAL for b in truth[2]]
    both = sum(m and t for m, t in zip(marked, true))
    n_marked, n_true = sum(marked), sum(true)
    print(f"cells: {len(marked)}; lethal in {argv[2]}: {n_true}; lethal in {argv[1]}: {n_marked}; in both: {both}")
    print(f"recall (share of {argv[2]}'s lethal cells marked): {both / n_true:.3f}" if n_true else "recall: no lethal cell in the truth")
    print(f"precision (share of the marked cells lethal in the truth): {both / n_marked:.3f}" if n_marked else "precision: no cell marked")


if __name__ == "__main__":
    main(sys.argv)
