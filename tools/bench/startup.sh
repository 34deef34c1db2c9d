#!/usr/bin/env bash
# Start-up cost of the mmp executable (issue 57): wall time and peak RSS of commands that do no real work
# (--version, costmap --help) and of a costmap (docs/demo_panel.jpg, 1757 x 498 px, the shipped follow_road model), the
# shared libraries each loads (the launcher's own and those libmmp_cli.so brings, as LD_DEBUG=files lists them), and
# the smallest address-space limit (ulimit -v) under which each runs: below it, it must say it needs more memory.
# Prints a table and one JSON line.  Each figure is the median of RUNS runs (default 5), warm page cache.
#   tools/bench/startup.sh [build/bin/mmp] [RUNS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mmp="${1:-$here/build/bin/mmp}"
runs="${2:-5}"
[ -x "$mmp" ] || { echo "startup.sh: no executable '$mmp' (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "startup.sh: needs GNU time (/usr/bin/time, Debian package time)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# median wall seconds and median peak RSS (MB) of a command over $runs runs
measure() {
  local walls=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2>&1 || true
    read -r w m < <(tail -n 1 "$work/time")
    walls+=("$w"); rss+=("$m")
  done
  local mw mr
  mw=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  mr=$(printf '%s\n' "${rss[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  echo "$mw $(awk -v k="$mr" 'BEGIN { printf "%.1f", k / 1024 }')"
}

# the smallest limit (MB, to 10 MB) under which a command exits 0 within 10 s, from 2000 MB down
smallest_limit() {
  local lo=10 hi=2000 mid
  ( ulimit -v $((hi * 1024)); timeout 10 "$@" > /dev/null 2>&1 ) || { echo ">2000"; return; }
  while [ $((hi - lo)) -gt 10 ]; do
    mid=$(( (lo + hi) / 2 ))
    if ( ulimit -v $((mid * 1024)); timeout 10 "$@" > /dev/null 2>&1 ) 2> /dev/null; then hi=$mid; else lo=$mid; fi
  done
  echo "$hi"
}

# shared libraries a command loads (linked and dlopen'ed)
libraries() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep 'file=.*\[0\];  \(needed\|dynamically\)' | grep -o 'file=[^ ]*' | sort -u | wc -l; }

v_libs=$(libraries "$mmp" --version)
h_libs=$(libraries "$mmp" costmap --help)
read -r v_s v_mb <<< "$(measure "$mmp" --version)"
read -r h_s h_mb <<< "$(measure "$mmp" costmap --help)"
read -r c_s c_mb <<< "$(measure "$mmp" costmap --model "$here/models/follow_road.mmp" \
  --image "$here/docs/demo_panel.jpg" --png "$work/c.png")"
v_limit=$(smallest_limit "$mmp" --version)
h_limit=$(smallest_limit "$mmp" costmap --help)

printf '%-44s %10s %10s\n' "command" "wall (s)" "RSS (MB)"
printf '%-44s %10s %10s\n' "mmp --version" "$v_s" "$v_mb"
printf '%-44s %10s %10s\n' "mmp costmap --help" "$h_s" "$h_mb"
printf '%-44s %10s %10s\n' "mmp costmap (docs/demo_panel.jpg, follow_road)" "$c_s" "$c_mb"
printf 'shared libraries loaded: --version %s, costmap --help %s; smallest ulimit -v: --version %s MB, costmap --help %s MB (median of %s runs)\n' \
  "$v_libs" "$h_libs" "$v_limit" "$h_limit" "$runs"
printf '{"bench":"startup","runs":%s,"version_libraries":%s,"help_libraries":%s,"version_s":%s,"version_rss_mb":%s,"help_s":%s,"help_rss_mb":%s,"costmap_s":%s,"costmap_rss_mb":%s,"version_smallest_ulimit_v_mb":"%s","help_smallest_ulimit_v_mb":"%s"}\n' \
  "$runs" "$v_libs" "$h_libs" "$v_s" "$v_mb" "$h_s" "$h_mb" "$c_s" "$c_mb" "$v_limit" "$h_limit"
