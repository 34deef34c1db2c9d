#!/bin/bash
# usage: tools/scripts/regions_validate.sh <behaviour> <off|on|learch_on>: leave-one-area-out on the training areas (holdout unused)
# off: the shipped model's selected settings (tools/scripts/imagestats_runs.sh); on: the same with
# features.region_window=32; learch_on: amphibious' selected LEARCH settings (with this behaviour's texture
# windows) and features.region_window=32.
cd "$(dirname "$0")/../.."
b=$1; n=$2
sel=$(grep "^  $b)" tools/scripts/imagestats_runs.sh | sed 's/.*sel="\(.*\)";;/\1/')
args=(--set select=null)
case $n in
  off) ;;
  on) args+=(--set features.region_window=32) ;;
  learch_on)
    tw=$(echo "$sel" | tr ' ' '\n' | grep '^features.texture_windows=')
    sel="$tw learner.cost_exponent=4 learner.kind=learch learner.learch.depth=3 learner.learch.start=uniform learner.learch.step=0.5 loss.scale=1 learner.learch.rounds=4"
    args+=(--set features.region_window=32) ;;
  *) echo "usage: $0 <behaviour> <off|on|learch_on>" >&2; exit 2 ;;
esac
for s in $sel; do args+=(--set "$s"); done
echo "build/bin/mmp train configs/$b.yaml --validate --threads 2 ${args[*]}"
/usr/bin/time -f "%e s" nice build/bin/mmp train configs/$b.yaml --validate --threads 2 --output-dir out/regions/val_${b}_$n "${args[@]}"
