#!/usr/bin/env bash
# Shows that check_commands.sh can fail: on bad_commands.md it must exit 1, name the file, line and
# unknown subcommand, flag or config of each wrong command, accept the right ones, and skip code
# blocks that are not shell.  CTest runs it as docs_commands_self_test.
#
#   bash tests/docs/check_commands_self_test.sh MMP_EXECUTABLE
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
output=$(bash check_commands.sh "$1" bad_commands.md)
status=$?
echo "$output"
failed=0
expect() {
  if ! grep -qF -- "$1" <<< "$output"; then
    echo "check_commands_self_test: FAILED: expected a line with: $1"
    failed=1
  fi
}
[[ $status -eq 1 ]] || { echo "check_commands_self_test: FAILED: exit code $status, expected 1"; failed=1; }
expect "bad_commands.md:4: FAILED: unknown flag --no-such-flag for mmp costmap"
expect "bad_commands.md:5: FAILED: unknown subcommand 'nosuchcommand'"
expect "bad_commands.md:6: FAILED: unknown flag --wrold for mmp plan"
expect "bad_commands.md:8: FAILED: configs/no_such_config.yaml (no such file in the checkout)"
expect "bad_commands.md:9: ok (block): mmp train configs/demo.yaml"
expect "bad_commands.md:12: FAILED: unknown flag --nav2-scales for mmp costmap"
expect "bad_commands.md:12: ok (inline): mmp plan --world"
expect "bad_commands.md:21: ok (block): mmp train configs/made_here.yaml"
expect "check_commands: 8 mmp command lines checked (6 in code blocks, 2 inline), 5 wrong"
if grep -qF -- "--not-checked" <<< "$output"; then
  echo "check_commands_self_test: FAILED: a cpp block was checked"
  failed=1
fi
[[ $failed -eq 0 ]] && echo "check_commands_self_test: passed"
exit $failed
