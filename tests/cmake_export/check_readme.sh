#!/usr/bin/env bash
# The README's library examples must be the consumer's code between its markers, word for word, so that
# the examples CI compiles and runs are the ones users read: README:begin/end is the README's
# consumer:begin/end block, NAV:begin/end its navigation:begin/end block.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0
compare() {  # code marker, README marker
  local code readme
  # the block without the indentation of its begin marker
  code=$(awk -v m="$1" '$0 ~ m ":end" {on = 0} on {print substr($0, cut + 1)} $0 ~ m ":begin" {on = 1; match($0, /^ */); cut = RLENGTH}' "$here/main.cpp")
  readme=$(sed -n "/<!-- $2:begin -->/,/<!-- $2:end -->/{//!p}" "$here/../../README.md" | sed '1d;$d')
  if [ -z "$code" ] || [ "$code" != "$readme" ]; then
    echo "README.md's $2 example differs from tests/cmake_export/main.cpp (between the $1 markers):"
    diff <(echo "$readme") <(echo "$code") || true
    status=1
  else
    echo "README $2 example: the same as tests/cmake_export/main.cpp"
  fi
}
compare README consumer
compare NAV navigation
exit $status
