#!/usr/bin/env bash
# The README's library example must be the consumer's code between its README markers, word for word,
# so that the example CI compiles and runs is the one users read.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
code=$(sed -n '/README:begin/,/README:end/{//!p}' "$here/main.cpp" | sed 's/^  //')
readme=$(sed -n '/<!-- consumer:begin -->/,/<!-- consumer:end -->/{//!p}' "$here/../../README.md" | sed '1d;$d')
if [ "$code" != "$readme" ]; then
  echo "README.md's library example differs from tests/cmake_export/main.cpp (between the README markers):"
  diff <(echo "$readme") <(echo "$code") || true
  exit 1
fi
echo "README library example: the same as tests/cmake_export/main.cpp"
