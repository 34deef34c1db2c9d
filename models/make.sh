#!/usr/bin/env bash
# Re-make every shipped model (models/<behaviour>.mmp) from its config by the config's own selection,
# as models/README.md describes, and say whether each equals the shipped file.
#
#   models/make.sh [options] OUT_DIR          make into OUT_DIR/<behaviour>/, then compare
#   models/make.sh --check-only OUT_DIR       compare what an earlier run made, train nothing
#   models/make.sh --dry-run OUT_DIR          print the commands, run nothing
#
# Options:
#   --only B[,B...]   these behaviours only (default: every models/*.mmp)
#   --jobs N          behaviours trained at a time (default 2, as the shipped models were made)
#   --mmp PATH        the mmp command (default: $MMP, else build/bin/mmp of this checkout)
#   --data-root DIR   the data (default: $MMP_DATA_ROOT, else each config's data_root: ../shared/data
#                     beside the checkout)
#   --no-check        make only, do not compare
#   --install         after making, copy each made model over models/<behaviour>.mmp (the only way this
#                     script writes into models/); refused with --check-only and --dry-run
#
# Each model is made by `mmp train <config> --output-dir OUT_DIR/<behaviour>`, where <config> is the
# config the shipped model records (`mmp info`, line "config"; configs/<behaviour>.yaml), unchanged: its
# `select:` chooses the settings on the training areas, then the chosen model is trained and scored on
# the holdout.  The log goes to OUT_DIR/<behaviour>.log.  Each made model is then compared with
# the shipped one by tools/scripts/compare_models.py: the weights, the feature names and every array
# (feature scaling, domain, LEARCH trees) bit for bit, and every recorded setting but the provenance
# (the mmp commit, the config's path), so the settings the selection chose, the holdout figures and the
# data files' fingerprints too; the effective config's text is reported as a note.  Training is bitwise
# reproducible, so "match" means today's code, configs and data make the shipped model.
#
# Time: 5 to 13 minutes a behaviour on the project's 2-core machine, two at a time (models/README.md),
# so about 20 to 30 minutes for the four.
#
# Without the data (no aerial/dubai_hitl under the data root) it says so and exits 0 having made and
# compared nothing ("skipped"); --dry-run prints the commands all the same.
# Exit status: 0 every model made and matched (or skipped), 1 a model differs, 2 a run failed or bad usage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
python=/usr/bin/python3
[[ -x $python ]] || python=python3

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "models/make.sh: $*" >&2; exit 2; }

out="" only="" jobs=2 mmp="${MMP:-}" data_root="${MMP_DATA_ROOT:-}" dry=0 check=1 train=1 install=0
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --dry-run) dry=1 ;;
    --check-only) train=0 ;;
    --no-check) check=0 ;;
    --install) install=1 ;;
    --only) [[ $# -ge 2 ]] || die "--only needs a list of behaviours"; only="$2"; shift ;;
    --only=*) only="${1#*=}" ;;
    --jobs) [[ $# -ge 2 ]] || die "--jobs needs a number"; jobs="$2"; shift ;;
    --jobs=*) jobs="${1#*=}" ;;
    --mmp) [[ $# -ge 2 ]] || die "--mmp needs a path"; mmp="$2"; shift ;;
    --mmp=*) mmp="${1#*=}" ;;
    --data-root) [[ $# -ge 2 ]] || die "--data-root needs a folder"; data_root="$2"; shift ;;
    --data-root=*) data_root="${1#*=}" ;;
    -*) die "unknown option '$1' (--help lists them)" ;;
    *) [[ -z $out ]] || die "one output folder only (got '$out' and '$1')"; out="$1" ;;
  esac
  shift
done
[[ -n $out ]] || die "give the output folder, e.g. models/make.sh out/remake (--help for the options)"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive whole number, not '$jobs'"
((train || !install)) || die "--install copies models this run made; it cannot go with --check-only"
((!dry || !install)) || die "--install cannot go with --dry-run"
((train || check)) || die "--check-only and --no-check together leave nothing to do"

# The commands run from the checkout: paths given relative to here are made absolute.
out="$(realpath -m "$out")"
[[ -z $data_root ]] || data_root="$(realpath -m "$data_root")"
[[ -z $mmp || $mmp != */* ]] || mmp="$(realpath -m "$mmp")"

# Never over the shipped files: the output folder may not be models/ or a folder in it.
resolved="$(realpath -m "$out")"
[[ $resolved != "$here" && $resolved != "$here"/* ]] ||
  die "the output folder '$out' is in models/, beside the shipped files; give another (--install copies over them)"

# The behaviours: every shipped model, or those named.
shipped=()
for file in "$here"/*.mmp; do [[ -e $file ]] && shipped+=("$(basename "$file" .mmp)"); done
((${#shipped[@]})) || die "no shipped model in $here"
behaviours=()
if [[ -n $only ]]; then
  IFS=, read -r -a behaviours <<<"$only"
  for b in "${behaviours[@]}"; do
    [[ -e $here/$b.mmp ]] || die "--only: no shipped model models/$b.mmp (shipped: ${shipped[*]})"
  done
else
  behaviours=("${shipped[@]}")
fi

# The data: skip clearly without it.
data_dir="${data_root:-$root/../shared/data}"
have_data=1
if [[ ! -d $data_dir/aerial/dubai_hitl ]]; then
  have_data=0
  echo "models/make.sh: no Dubai data at $data_dir/aerial/dubai_hitl (put the shared data sets at ../shared/data beside the checkout, set MMP_DATA_ROOT, or give --data-root)"
fi

if ((!have_data && !dry)); then
  echo "models/make.sh: skipped: made and compared nothing"
  exit 0
fi

# The mmp command.
if [[ -z $mmp ]]; then mmp="$root/build/bin/mmp"; fi
if [[ ! -x $mmp ]]; then
  if ((dry)); then echo "# note: no mmp command at $mmp (build it, or give --mmp)"
  else die "no mmp command at $mmp: build it (tools/setup.sh, mmp_build) or give --mmp PATH"; fi
fi

# Each shipped model's config, as it records it (relative to the checkout), else configs/<b>.yaml.
config_of() {
  local b="$1" recorded=""
  if [[ -x $mmp ]]; then
    recorded="$("$mmp" info "$here/$b.mmp" --json 2>/dev/null |
                "$python" -c 'import json, sys; print(json.load(sys.stdin).get("config", ""))' 2>/dev/null || true)"
  fi
  if [[ -n $recorded && -f $root/$recorded ]]; then echo "$recorded"; else echo "configs/$b.yaml"; fi
}

data_args=()
[[ -z $data_root ]] || data_args=(--data-root "$data_root")

train_command() {  # the command that makes behaviour $1, one word an element
  local b="$1"
  printf '%q ' "$mmp" train "$(config_of "$b")" --output-dir "$out/$b" "${data_args[@]}"
}

if ((dry)); then
  echo "# from $root; ${#behaviours[@]} behaviour(s), $jobs at a time; about 5 to 13 min each on 2 cores"
  for b in "${behaviours[@]}"; do
    if ((train)); then echo "$(train_command "$b")> $(printf '%q' "$out/$b.log") 2>&1"; fi
    if ((check)); then
      echo "$(printf '%q ' "$python" tools/scripts/compare_models.py "models/$b.mmp" "$out/$b/model.mmp")"
    fi
  done
  ((have_data)) || echo "# (these would be skipped here: no data)"
  exit 0
fi

mkdir -p "$out"
cd "$root"
failed=()
if ((train)); then
  echo "making ${#behaviours[@]} model(s) into $out, $jobs at a time (about 5 to 13 min each on 2 cores)"
  running=0
  for b in "${behaviours[@]}"; do
    rm -f "$out/$b.status"
    command="$(train_command "$b")"
    echo "  start $b: $command(log: $out/$b.log)"
    ( start=$SECONDS
      if eval "$command" >"$out/$b.log" 2>&1; then
        echo ok >"$out/$b.status"
        echo "  done  $b in $(( (SECONDS - start + 30) / 60 )) min"
      else
        echo failed >"$out/$b.status"
        echo "  FAILED $b after $(( (SECONDS - start + 30) / 60 )) min: see $out/$b.log"
      fi ) &
    running=$((running + 1))
    if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  done
  wait
  for b in "${behaviours[@]}"; do
    [[ "$(cat "$out/$b.status" 2>/dev/null)" == ok ]] || failed+=("$b")
  done
fi

status=0 matched=0 differing=()
if ((check)); then
  echo "comparing with the shipped models (weights, arrays and recorded settings; provenance left out):"
  for b in "${behaviours[@]}"; do
    if [[ ! -f $out/$b/model.mmp ]]; then
      echo "  $b: no made model at $out/$b/model.mmp"; status=2; continue
    fi
    set +e
    verdict="$("$python" "$root/tools/scripts/compare_models.py" "$here/$b.mmp" "$out/$b/model.mmp" 2>&1)"
    code=$?
    set -e
    echo "  $b: ${verdict//$'\n'/$'\n'    }"
    if ((code == 0)); then matched=$((matched + 1)); else differing+=("$b"); fi
    ((code == 0)) || { ((code == 1 && status != 2)) && status=1 || status=2; }
  done
  echo "$matched of ${#behaviours[@]} match the shipped models${differing[*]:+; differ: ${differing[*]}}"
fi

if ((${#failed[@]})); then
  echo "failed: ${failed[*]}"
  exit 2
fi
if ((install)); then
  for b in "${behaviours[@]}"; do
    cp "$out/$b/model.mmp" "$here/$b.mmp.tmp" && mv "$here/$b.mmp.tmp" "$here/$b.mmp"
    echo "installed $out/$b/model.mmp -> models/$b.mmp"
  done
fi
exit "$status"
