#!/usr/bin/env python3
"""The picture of mmp's CMake targets and their link arrows (docs/architecture.md).

Reads the Graphviz file CMake writes with --graphviz and keeps mmp's own targets: the libraries, the
front end, the command line, the Python module, the benchmarks (one node) and the page's server; the
third-party libraries each target links directly are listed under its name.  Writes a Graphviz file
for `dot`:

    cmake -S . -B /tmp/graph -DMMP_BUILD_PYTHON=ON -DMMP_BUILD_BENCHMARKS=ON --graphviz=/tmp/graph/targets.dot
    tools/scripts/target_graph.py /tmp/graph/targets.dot | dot -Tpng -o docs/architecture.png
"""
import re
import sys

# Third-party names worth showing beside a target (CMake's target label -> short name).
THIRD_PARTY = {"Eigen3::Eigen": "Eigen", "opencv_core": "OpenCV", "GDAL::GDAL": "GDAL", "JPEG::JPEG": "libjpeg",
               "torch": "libtorch", "ompl::ompl": "OMPL", "yaml-cpp": "yaml-cpp", "CLI11::CLI11": "CLI11",
               "ZLIB::ZLIB": "zlib", "pybind11::module": "pybind11", "dlib::dlib": "dlib", "Boost::headers": "Boost",
               "/usr/lib/x86_64-linux-gnu/liblbfgs.so": "liblbfgs", "nlohmann_json::nlohmann_json": "nlohmann-json",
               "httplib::httplib": "cpp-httplib", "PkgConfig::HTTPLIB": "cpp-httplib", "MPI::MPI_CXX": "MPI"}


def own(label):
    if "header_check" in label or label.split("\\n")[0] in ("mmp_fuzz_targets", "mmp_test_paths"):
        return False  # checks and test helpers
    return label.startswith("mmp") or label.startswith("bench_")


def short(label):
    name = label.split("\\n")[0]
    if name.startswith("bench_"):
        return "bench_*"
    return {"mmp": "mmp (executable)", "mmp_python": "Python module mmp"}.get(name, name.replace("mmp_", "mmp::", 1)
                                                                              if name != "mmp_frontend" and name != "mmp_cli"
                                                                              else name)


def main(path):
    text = open(path).read()
    labels = dict(re.findall(r'"(node\d+)" \[ label = "((?:[^"\\]|\\.)*)"', text))
    edges = re.findall(r'"(node\d+)" -> "(node\d+)"', text)
    keep = {n: short(l) for n, l in labels.items() if own(l)}
    arrows, extras = set(), {}
    for a, b in edges:
        if a not in keep:
            continue
        if b in keep and keep[a] != keep[b] and keep[b] != "mmp (executable)":  # bench_scale runs it: no link
            arrows.add((keep[a], keep[b]))
        elif b not in keep and labels[b] in THIRD_PARTY:
            extras.setdefault(keep[a], set()).add(THIRD_PARTY[labels[b]])
    # Drop an arrow a -> c when a -> b -> ... -> c already says it (the picture shows direct layers).
    def reaches(a, c, skip):
        stack, seen = [b for (x, b) in arrows if x == a and (x, b) != skip], set()
        while stack:
            n = stack.pop()
            if n == c:
                return True
            if n not in seen:
                seen.add(n)
                stack.extend(b for (x, b) in arrows if x == n)
        return False
    direct = sorted(e for e in arrows if not reaches(e[0], e[1], e))
    print("digraph mmp {\n  rankdir=BT;\n  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];")
    for name in sorted(set(keep.values())):
        libs = ", ".join(sorted(extras.get(name, ())))
        label = name + (f"\\n<{libs}>" if libs else "")
        label = label.replace("<", "(").replace(">", ")")
        print(f'  "{name}" [label="{label}"];')
    for a, b in direct:
        print(f'  "{a}" -> "{b}";')
    print("}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "targets.dot")
