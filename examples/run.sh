#!/usr/bin/env bash
# Builds the examples against an installed mmp and runs each one on data it makes itself:
#   1. train_from_folder (no arguments): a model trained on two generated scenes, and scene.png, a third
#   2. costmap_of_image on scene.png: a picture; with a world file (scene.pgw) beside it, a GeoTIFF raster
#   3. plan_and_nav2 between two world points of scene.png's frame, A* and BIT*, and a Nav2 map
#   4. train_from_folder FOLDER: a model from scene.png with the A* path of step 3 as its demonstration
#   5. an error: a missing model file must end costmap_of_image with exit code 1 and a message
#
#   bash examples/run.sh PREFIX      PREFIX: where `cmake --install build --prefix PREFIX` put mmp
#
# Works in a temporary folder (removed at the end; KEEP=1 keeps it).  Prints every command it runs and
# exits non-zero on the first failure.  About 30 s on 2 cores, most of it compiling.
set -euo pipefail

if [[ $# -ne 1 || ! -d $1 ]]; then
  echo "usage: bash examples/run.sh PREFIX   (an mmp installed with cmake --install ... --prefix PREFIX)" >&2
  exit 2
fi
prefix=$(cd "$1" && pwd)
examples=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mmp-examples.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
  echo "examples/run.sh: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
started=$SECONDS

run() {
  echo "+ $*"
  "$@"
}
# Fails naming the file unless it exists and is not empty.
expect_file() {
  if [[ ! -s $1 ]]; then
    echo "examples/run.sh: FAILED: $1 was not written" >&2
    exit 1
  fi
}

launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
configure=(cmake -S "$examples" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}")
echo "+ ${configure[*]}"
"${configure[@]}" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
grep -- "-- mmp " "$work/configure.log" || true
run cmake --build "$work/build" -j2
bin=$work/build
mkdir -p "$work/run"
cd "$work/run"

# 1. A model from two generated scenes (30 iterations), and an unseen scene to use it on.
run "$bin/train_from_folder"
expect_file model.mmp
expect_file scene.png

# 2. Its cost map as a picture; then, placed by a world file (0.5 m pixels, upper-left corner at
#    500000, 2800000: 6 lines, the centre of the upper-left pixel last), as a float32 GeoTIFF.
run "$bin/costmap_of_image" model.mmp scene.png costmap.png
expect_file costmap.png
printf '0.5\n0\n0\n-0.5\n500000.25\n2799999.75\n' > scene.pgw
run "$bin/costmap_of_image" model.mmp scene.png costs.tif
expect_file costs.tif

# 3. Between two world points of that frame: A*, BIT* and a Nav2 map.
run "$bin/plan_and_nav2" model.mmp scene.png 500010,2799990 500245,2799755 nav bitstar
for file in nav/astar_path.csv nav/bitstar_path.csv nav/nav2/map.yaml nav/nav2/map.pgm nav/nav2/map.levels.csv; do
  expect_file "$file"
done

# 4. A folder of one image with a demonstration beside it: the A* path of step 3 (read by its pixel columns).
mkdir -p demos
cp scene.png demos/scene.png
cp nav/astar_path.csv demos/scene.csv
run "$bin/train_from_folder" demos demos_model.mmp
expect_file demos_model.mmp

# 5. Errors end the program with exit code 1 and one message naming what is wrong.
echo "+ $bin/costmap_of_image missing.mmp scene.png   (must fail)"
status=0
"$bin/costmap_of_image" missing.mmp scene.png || status=$?
if [[ $status -ne 1 ]]; then
  echo "examples/run.sh: FAILED: costmap_of_image on a missing model exited $status, expected 1" >&2
  exit 1
fi

echo "examples/run.sh: all examples passed in $((SECONDS - started)) s"
