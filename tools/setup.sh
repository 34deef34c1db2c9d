# Sourced by tools/test.sh and tools/demo.sh: installs the Debian packages mmp needs when they are
# missing (one apt-get update, non-interactive), then configures and builds.
#   MMP_BUILD_DIR   build folder (default: build)
#   MMP_CMAKE_ARGS  extra CMake arguments, e.g. -DMMP_SANITIZE=ON
#   MMP_BENCHMARKS  1: also install the benchmarks' peers (dlib, Boost.Graph, liblinear) and build the benchmarks (tools/bench/)
#   MMP_BUNDLE      1 (default): compile each target's sources in bundles of six (MMP_BUNDLE_BUILD, a unity
#                   build that keeps ccache's hits across clones: cmake/mmpBundles.cmake); 0 for one by one
#   MMP_PYTHON      1 (default): also install pybind11, NumPy and pytest and build the Python module mmp
#                   (tools/python, docs/python.md) for MMP_PYTHON_EXECUTABLE (default: Debian's /usr/bin/python3)
# Builds go through ccache (its cache is kept between runs on the same machine; CCACHE_BASEDIR is the
# checkout, so a fresh clone in another folder hits the same entries).

MMP_SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MMP_BUILD_DIR="${MMP_BUILD_DIR:-$MMP_SOURCE_DIR/build}"
MMP_PACKAGES=(cmake g++ make pkg-config libeigen3-dev libyaml-cpp-dev doctest-dev libcli11-dev zlib1g-dev libjpeg-dev
  libopencv-dev libopencv-contrib-dev nlohmann-json3-dev libgdal-dev libompl-dev libboost-serialization-dev
  libboost-filesystem-dev libboost-system-dev ccache libtorch-dev libopenblas0-openmp liblbfgs-dev gdal-bin
  libcpp-httplib-dev)
# Test-only packages, installed by tools/test.sh (never by tools/demo.sh): the teaching page's browser test
# (tests/serve/test_serve_browser.py) drives headless chromium through chromium-driver with python3-selenium;
# Open MPI turns on mmp::core_mpi (MMP_WITH_MPI=AUTO) and its tests under mpirun (docs/mpi.md).
MMP_TEST_PACKAGES=(chromium chromium-driver python3-selenium libopenmpi-dev openmpi-bin)
if [ "${MMP_BUNDLE:-1}" = 1 ]; then
  MMP_CMAKE_ARGS="${MMP_CMAKE_ARGS:-} -DMMP_BUNDLE_BUILD=ON"
else
  MMP_CMAKE_ARGS="${MMP_CMAKE_ARGS:-} -DMMP_BUNDLE_BUILD=OFF"
fi
if [ "${MMP_PYTHON:-1}" = 1 ]; then
  MMP_PACKAGES+=(pybind11-dev python3-dev python3-numpy python3-pytest)
  MMP_CMAKE_ARGS="${MMP_CMAKE_ARGS:-} -DMMP_BUILD_PYTHON=ON -DPython_EXECUTABLE=${MMP_PYTHON_EXECUTABLE:-/usr/bin/python3}"
fi
if [ "${MMP_BENCHMARKS:-0}" = 1 ]; then
  MMP_PACKAGES+=(libdlib-dev libboost-dev libboost-graph-dev liblinear-dev)
  MMP_CMAKE_ARGS="${MMP_CMAKE_ARGS:-} -DMMP_BUILD_BENCHMARKS=ON"
fi

mmp_install_packages() {
  local missing=()
  for p in "${MMP_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "mmp: installing missing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Compiler launcher arguments: ccache, with paths taken relative to the checkout (and no working
# folder in the hash of debug builds), so that every clone shares the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$MMP_SOURCE_DIR}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
mmp_ccache_args() {
  if command -v ccache > /dev/null; then echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; fi
}

mmp_build() {  # [targets...]: only these (the demo builds the mmp command alone); none: everything
  # shellcheck disable=SC2086
  cmake -S "$MMP_SOURCE_DIR" -B "$MMP_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release $(mmp_ccache_args) ${MMP_CMAKE_ARGS:-}
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$MMP_BUILD_DIR" -j"$(nproc)" "${targets[@]}"
}
