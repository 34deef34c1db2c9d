#!/usr/bin/env bash
# Checks the mmp command lines the documentation shows against the mmp executable: every subcommand
# must exist and every --flag a command uses must appear in `mmp <subcommand> --help`.
#
#   bash tests/docs/check_commands.sh MMP_EXECUTABLE [FILE.md ...]
#
# FILEs default to README.md and docs/*.md of the checkout this script lives in.  Commands are taken
# from fenced code blocks tagged sh, bash, shell, console or untagged (lines starting with `mmp `,
# `build/bin/mmp ` or `$ mmp `, joined over trailing backslashes, comments after ` #` dropped) and
# from inline code spans in the text that start the same way (`mmp costmap --raw costs.tif`).  A
# placeholder subcommand (`mmp <command> --help`) is checked against `mmp --help`; a config named
# (configs/NAME.yaml) must exist in the checkout unless the page writes it (`> configs/NAME.yaml`).
# Prints each command checked; exits 1 naming the file, line and unknown subcommand, flag or config.
# CTest runs it as docs_commands (tests/CMakeLists.txt).
set -euo pipefail

if [[ $# -lt 1 || ! -x $1 ]]; then
  echo "usage: bash tests/docs/check_commands.sh MMP_EXECUTABLE [FILE.md ...]" >&2
  exit 2
fi
mmp=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ $# -eq 0 ]]; then
  cd "$root"
  set -- README.md docs/*.md
fi

# Records "FILE<TAB>LINE<TAB>block|inline<TAB>COMMAND", the command starting at its first word after `mmp`.
extract() {
  awk '
    function emit(kind, line, text) {
      sub(/^[ \t]+/, "", text)
      sub(/^\$[ \t]+/, "", text)
      if (text !~ /^(build\/bin\/)?mmp([ \t]|$)/) return
      sub(/[ \t]+#.*$/, "", text)                  # a trailing shell comment
      sub(/^(build\/bin\/)?mmp[ \t]*/, "", text)
      gsub(/[ \t]+/, " ", text); sub(/ $/, "", text)
      if (text == "") return                       # `mmp`: the program named, no command
      printf "%s\t%d\t%s\t%s\n", FILENAME, line, kind, text
    }
    FNR == 1 { fenced = 0; pending = "" }
    /^[ \t]*```/ {
      if (!fenced) {
        tag = $0; sub(/^[ \t]*```[ \t]*/, "", tag); sub(/[ \t].*$/, "", tag)
        fenced = 1
        shell = (tag == "" || tag == "sh" || tag == "bash" || tag == "shell" || tag == "console")
      } else {
        fenced = 0
      }
      next
    }
    fenced && shell {
      text = $0
      if (pending == "") start = FNR
      if (text ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, " ", text); pending = pending text; next }
      emit("block", start, pending text)
      pending = ""
      next
    }
    !fenced {
      rest = $0
      while (match(rest, /`[^`]+`/)) {
        emit("inline", FNR, substr(rest, RSTART + 1, RLENGTH - 2))
        rest = substr(rest, RSTART + RLENGTH)
      }
    }
  ' "$@"
}

top_help=$("$mmp" --help)
# The subcommands `mmp --help` lists under "Subcommands:".
subcommands=$(printf '%s\n' "$top_help" | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
declare -A helps

checked=0 blocks=0 failures=0
while IFS=$'\t' read -r file line kind command; do
  read -r -a words <<< "$command"
  sub=${words[0]:-}
  where="$file:$line"
  checked=$((checked + 1))
  [[ $kind == block ]] && blocks=$((blocks + 1))
  if [[ -z $sub || $sub == -* || $sub == \<* ]]; then
    help=$top_help
    name="mmp"
  elif ! grep -qxF -- "$sub" <<< "$subcommands"; then
    echo "$where: FAILED: unknown subcommand '$sub' in: mmp $command (mmp --help lists: $(echo $subcommands))"
    failures=$((failures + 1))
    continue
  else
    if [[ -z ${helps[$sub]+set} ]]; then helps[$sub]=$("$mmp" "$sub" --help); fi
    help=${helps[$sub]}
    name="mmp $sub"
  fi
  bad=()
  for word in "${words[@]}"; do
    # A config of the checkout must exist, unless the page writes it first (`git show ... > configs/x.yaml`).
    if [[ $word =~ ^configs/[^\<]+\.yaml$ && ! -e $root/$word ]] && ! grep -qF -- "> $word" "$file"; then
      bad+=("$word (no such file in the checkout)")
    fi
    [[ $word =~ ^(--[A-Za-z0-9][A-Za-z0-9-]*) ]] || continue
    flag=${BASH_REMATCH[1]}
    if ! grep -qE -- "(^|[[:space:],])${flag}([[:space:]=,]|$)" <<< "$help"; then bad+=("$flag"); fi
  done
  if [[ ${#bad[@]} -gt 0 ]]; then
    for flag in "${bad[@]}"; do
      if [[ $flag == --* ]]; then
        echo "$where: FAILED: unknown flag $flag for $name (not in '$name --help') in: mmp $command"
      else
        echo "$where: FAILED: $flag in: mmp $command"
      fi
    done
    failures=$((failures + 1))
  else
    echo "$where: ok ($kind): mmp $command"
  fi
done < <(extract "$@")

echo "check_commands: $checked mmp command lines checked ($blocks in code blocks, $((checked - blocks)) inline), $failures wrong"
if [[ $checked -eq 0 ]]; then
  echo "check_commands: FAILED: no mmp command found in $*" >&2
  exit 1
fi
[[ $failures -eq 0 ]]
