#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, docs/fuzzing.md) with Clang, ASan and UBSan in build-fuzz/
# and runs each for SECONDS (default 30) on a copy of its seed corpus, after replaying its regression
# inputs.  Prints one line per target and fails if any target crashed, hung, leaked or blew its
# memory limit; the input that did it is kept in build-fuzz/fuzz-runs/<target>/ (see the line).
#   tests/fuzz/fuzz.sh [SECONDS] [TARGET...]
#   MMP_FUZZ_BUILD_DIR   build folder (default: build-fuzz)
#   MMP_FUZZ_JOBS        targets run at once (default: the number of cores)
#   MMP_FUZZ_ARGS        extra libFuzzer flags, e.g. "-use_value_profile=1"
#   MMP_FUZZ_TESTS       1: build the test suites in the same instrumented build (Clang, ASan + UBSan)
#                        and run them through CTest before fuzzing -- CI's sanitizer stage, so that one
#                        build serves both
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/setup.sh"

seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(model_file train_config demonstration letters pairs image multilabel geotiff serve)
build="${MMP_FUZZ_BUILD_DIR:-$MMP_SOURCE_DIR/build-fuzz}"
jobs="${MMP_FUZZ_JOBS:-$(nproc)}"
fuzz_dir="$MMP_SOURCE_DIR/tests/fuzz"

# Debian's clang-14 ships libFuzzer's runtime (libclang_rt.fuzzer*.a) in libclang-rt-14-dev.
MMP_PACKAGES+=(clang libclang-rt-14-dev)
mmp_install_packages

# -O1 -g without NDEBUG: assertions stay on, stacks stay readable.  The suites only with MMP_FUZZ_TESTS=1.
# Without libtorch: its network training is not instrumented code of mmp's (the Release suites run it),
# and the network's own forward pass, in mmp::maps, is built and tested here as everywhere.
tests=OFF
[ "${MMP_FUZZ_TESTS:-0}" = 1 ] && tests=ON
mkdir -p "$build"
# shellcheck disable=SC2046
CC=clang CXX=clang++ cmake -S "$MMP_SOURCE_DIR" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DMMP_BUILD_FUZZERS=ON -DMMP_BUILD_TESTS=$tests -DMMP_WITH_TORCH=OFF \
  -DMMP_BUNDLE_BUILD="$([ "${MMP_BUNDLE:-1}" = 1 ] && echo ON || echo OFF)" $(mmp_ccache_args) \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
if [ "$tests" = ON ]; then
  cmake --build "$build" -j"$(nproc)"
  echo "== the test suites under ASan + UBSan (Clang)"
  # tests/lsan.supp: leaks inside third-party libraries that mmp cannot free, each named there.  Run in the
  # Release suites only: the cases of doctest suite "long" (long training runs of code the other cases reach
  # too) and the tests labelled "browser" (a real browser driving the page, each run alone: the server's
  # handlers they call are instrumented here through test_serve).
  (cd "$build" && LSAN_OPTIONS="suppressions=$MMP_SOURCE_DIR/tests/lsan.supp" ctest --output-on-failure -j"$(nproc)" -LE "long|browser")
  echo "(left out here, run by tools/test.sh: the $(cd "$build" && ctest -N -L "long|browser" | sed -n 's/^Total Tests: //p') cases of doctest suite \"long\" and the browser tests)"
else
  cmake --build "$build" -j"$(nproc)" --target mmp_fuzzers
fi

# The harness writes each input to a file under $TMPDIR: memory is faster than the disk.
scratch="$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/mmp-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# run_target NAME: fuzzes one target; its summary goes to $runs/NAME/summary, its status to .../status.
runs="$build/fuzz-runs"
run_target() {
  local name="$1" work="$runs/$1"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/crashes" "$scratch/$name"
  cp "$fuzz_dir/corpus/$name/"* "$work/corpus/"
  local inputs=("$work/corpus")
  [ -d "$fuzz_dir/regressions/$name" ] && inputs+=("$fuzz_dir/regressions/$name")
  local status=0 started=$SECONDS
  # shellcheck disable=SC2086
  TMPDIR="$scratch/$name" "$build/bin/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$work/crashes/" ${MMP_FUZZ_ARGS:-} \
    "${inputs[@]}" > "$work/log" 2>&1 || status=$?
  local elapsed=$((SECONDS - started))
  # The last figures libFuzzer printed (awk: no failing pipeline when a crash cut the log short).
  local runs_done rate cov ft crash
  # (-fork mode prints no stat:: lines, only "#<runs>: cov: .. exec/s <rate> ..." lines)
  runs_done=$(awk '/^stat::number_of_executed_units:/ {v = $2} /^#[0-9]+: cov:/ {f = substr($1, 2, length($1) - 2)}
                   END {print v != "" ? v : f}' "$work/log")
  rate=$(awk '/^stat::average_exec_per_sec:/ {v = $2} /^#[0-9]+: cov:/ {for (i = 1; i < NF; ++i) if ($i == "exec/s") f = $(i + 1)}
              END {print v != "" ? v : f}' "$work/log")
  cov=$(awk '{for (i = 1; i < NF; ++i) if ($i == "cov:") v = $(i + 1)} END {print v}' "$work/log")
  ft=$(awk '{for (i = 1; i < NF; ++i) if ($i == "ft:") v = $(i + 1)} END {print v}' "$work/log")
  # libFuzzer also writes slow-unit-* for an input that took as long as -report_slow_units (10 s): not a
  # failure (a hang is a timeout-* and a non-zero exit), but said, since on a loaded machine any input can.
  crash=$(find "$work/crashes" -type f ! -name 'slow-unit-*' -print -quit)
  local slow crashes=0
  slow=$(find "$work/crashes" -type f -name 'slow-unit-*' | wc -l)
  { [ "$status" -ne 0 ] || [ -n "$crash" ]; } && crashes=1
  printf 'fuzz_%-14s %9s executions in %s s (%s exec/s), coverage %s edges / %s features, crashes %d%s%s\n' \
    "$name" "${runs_done:-?}" "$elapsed" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$crashes" \
    "$([ "$crashes" -eq 0 ] || echo ": exit $status, input ${crash:-none}, log $work/log")" \
    "$([ "$slow" -eq 0 ] || echo " ($slow input(s) took >= 10 s: $work/crashes/slow-unit-*; replay them alone)")" > "$work/summary"
  echo "$crashes" > "$work/status"
}

echo "== fuzzing ${#targets[@]} targets for $seconds s each, $jobs at a time"
for name in "${targets[@]}"; do
  [ -d "$fuzz_dir/corpus/$name" ] || { echo "fuzz.sh: unknown target '$name' (no tests/fuzz/corpus/$name)"; exit 2; }
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$name" &
done
wait

failed=0
for name in "${targets[@]}"; do
  cat "$runs/$name/summary"
  if [ "$(cat "$runs/$name/status")" != 0 ]; then
    failed=1
    # The sanitizer's or libFuzzer's report: from its first line on, at most 40 lines.
    grep -a -m1 -A40 -E '^==[0-9]+==|runtime error|ERROR: libFuzzer|terminate called' "$runs/$name/log" | sed 's/^/    /' || true
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz.sh: a target failed; reproduce with $build/bin/fuzz_<target> <input>, then keep the input under tests/fuzz/regressions/<target>/"
  exit 1
fi
