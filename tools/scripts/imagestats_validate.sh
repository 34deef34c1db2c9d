#!/bin/bash
# usage: tools/scripts/imagestats_validate.sh <behaviour> <off|per_image>: leave-one-area-out on the training areas (holdout unused)
cd "$(dirname "$0")/../.."
b=$1; n=$2
sel=$(grep "^  $b)" tools/scripts/imagestats_runs.sh | sed 's/.*sel="\(.*\)";;/\1/')
args=(--set select=null --set features.normalise=$n)
for s in $sel; do args+=(--set "$s"); done
/usr/bin/time -f "%e s" nice build/bin/mmp train configs/$b.yaml --validate --output-dir out/imagestats/val_${b}_$n "${args[@]}"
