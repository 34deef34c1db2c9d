#!/usr/bin/env python3
"""Does a re-made model equal the shipped one?  Compares two mmp model files (models/make.sh --check).

    tools/scripts/compare_models.py SHIPPED.mmp MADE.mmp

Byte identity is not expected: a model file records its provenance (the mmp commit that made it, the
config path as given, the output folder).  So the files are read (the layout of
core/include/mmp/core/model_file.hpp: magic, version, weights, feature names, settings, arrays, checksum)
and compared part by part:

- compared exactly, bit for bit: the format version, the weights, the feature names, every named array
  (feature scaling, the training domain, LEARCH's trees), and every setting but the provenance ones
  below: among them what the selection chose (`selected`), the recorded holdout figures
  (`holdout_*`), the training images and cost range, and the data files' fingerprints (`data`);
- reported as a note, not a difference: `config_effective` (the settings as mmp train read them, its
  `output_dir:` line left out): it is printed with every setting at its value, so a setting added to
  mmp since the model was shipped changes its text and not the model (a changed value that matters
  changes the weights or `selected` too);
- not compared (provenance): `mmp_version` (the commit), `config` (the config's path as given).

Training is bitwise reproducible (docs/results-cost-maps.md, "Reproducibility"), so the same code, config
and data give the same weights; any difference is reported with its size.  Prints one verdict line,
"match" or "differs", then what differs and the notes.  Exit status 0 on a match, 1 on a difference, 2 if a file
cannot be read.  Standard library only.
"""
import difflib
import struct
import sys

PROVENANCE = {"mmp_version", "config"}


class ModelFile:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.raw = f.read()
        self.offset = 0
        if self.raw[:8] != b"MMPMODEL":
            raise ValueError(f"'{path}' is not an mmp model file: it does not start with \"MMPMODEL\"")
        self.offset = 8
        (self.version,) = self._unpack("<I")
        self.weights = self._doubles()
        self.feature_names = [self._string() for _ in range(self._unpack("<Q")[0])]
        self.settings = {}
        for _ in range(self._unpack("<Q")[0]):
            key = self._string()
            self.settings[key] = self._string()
        self.arrays = {}
        for _ in range(self._unpack("<Q")[0]):
            key = self._string()
            self.arrays[key] = self._doubles()
        self._unpack("<Q")  # checksum; mmp itself verifies it when it loads the file
        if self.raw[self.offset:] != b"MMPEND!!":
            raise ValueError(f"'{path}': the end marker is missing or followed by extra bytes")

    def _unpack(self, fmt):
        size = struct.calcsize(fmt)
        if self.offset + size > len(self.raw):
            raise ValueError(f"'{self.path}' is truncated at byte {len(self.raw)}")
        values = struct.unpack_from(fmt, self.raw, self.offset)
        self.offset += size
        return values

    def _string(self):
        (n,) = self._unpack("<Q")
        text = self.raw[self.offset:self.offset + n]
        if len(text) != n:
            raise ValueError(f"'{self.path}' is truncated at byte {len(self.raw)}")
        self.offset += n
        return text.decode("utf-8", errors="replace")

    def _doubles(self):
        (n,) = self._unpack("<Q")
        return list(self._unpack(f"<{n}d")) if n else []


def largest_difference(a, b):
    """(largest absolute difference, largest relative difference) of two equal-length lists."""
    absolute = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    relative = max((abs(x - y) / max(abs(x), abs(y)) for x, y in zip(a, b) if x != y), default=0.0)
    return absolute, relative


def without_output_dir(text):
    return "\n".join(line for line in text.splitlines() if not line.startswith("output_dir:"))


def short(text, width=90):
    text = text.replace("\n", " | ")
    return text if len(text) <= width else text[:width - 3] + "..."


def compare(shipped, made):
    """Returns (differences, notes), each a list of lines."""
    out, notes = [], []
    if shipped.version != made.version:
        out.append(f"format version: shipped {shipped.version}, made {made.version}")
    for what, a, b in [("weights", shipped.weights, made.weights)] + [
            (f"array '{k}'", shipped.arrays.get(k), made.arrays.get(k))
            for k in sorted(set(shipped.arrays) | set(made.arrays))]:
        if a is None or b is None:
            out.append(f"{what}: only in the {'made' if a is None else 'shipped'} model")
        elif len(a) != len(b):
            out.append(f"{what}: {len(a)} values shipped, {len(b)} made")
        elif a != b:
            absolute, relative = largest_difference(a, b)
            changed = sum(1 for x, y in zip(a, b) if x != y)
            out.append(f"{what}: {changed} of {len(a)} values differ, largest by {absolute:.3g} "
                       f"(relative {relative:.3g})")
    if shipped.feature_names != made.feature_names:
        out.append(f"feature names: {len(shipped.feature_names)} shipped, {len(made.feature_names)} made, "
                   "not the same list")
    for key in sorted(set(shipped.settings) | set(made.settings)):
        if key in PROVENANCE:
            continue
        a, b = shipped.settings.get(key), made.settings.get(key)
        if key == "config_effective" and a is not None and b is not None:
            a, b = without_output_dir(a), without_output_dir(b)
        if a == b:
            continue
        where = notes if key == "config_effective" else out
        if a is None or b is None:
            where.append(f"setting '{key}': only in the {'made' if a is None else 'shipped'} model")
        elif key in ("config_effective", "data", "holdout_per_image"):
            diff = [line for line in difflib.ndiff(a.splitlines(), b.splitlines()) if line[:2] in ("- ", "+ ")]
            only_shipped = [line[2:] for line in diff if line.startswith("- ")]
            only_made = [line[2:] for line in diff if line.startswith("+ ")]
            first = "".join(f"; first only {side}: '{short(lines[0], 60)}'"
                            for side, lines in (("shipped", only_shipped), ("made", only_made)) if lines)
            where.append(f"setting '{key}': {len(only_shipped)} lines only in the shipped model, "
                         f"{len(only_made)} only in the made one{first}")
        else:
            out.append(f"setting '{key}': shipped '{short(a)}', made '{short(b)}'")
    return out, notes


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        shipped, made = ModelFile(argv[1]), ModelFile(argv[2])
    except (OSError, ValueError, struct.error) as error:
        print(f"cannot compare: {error}", file=sys.stderr)
        return 2
    differences, notes = compare(shipped, made)
    if not differences:
        if shipped.raw == made.raw:
            print("match: the same bytes")
        else:
            print("match: the same weights, arrays, choice and holdout figures; provenance: "
                  f"'{shipped.settings.get('mmp_version')}' -> '{made.settings.get('mmp_version')}'")
    else:
        print(f"differs: {len(differences)} part(s)")
    for line in differences:
        print(f"  {line}")
    for line in notes:
        print(f"  note: {line}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
