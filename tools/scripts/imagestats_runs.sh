#!/bin/bash
# usage: tools/scripts/imagestats_runs.sh <behaviour> <off|per_image>
set -e
cd "$(dirname "$0")/../.."
b=$1; n=$2
case $b in
  follow_road) sel="features.texture_windows=[7,31] learner.cost_exponent=2 learner.costs=linear learner.kind=online learner.online.lambda=0.03 loss.scale=1 learner.online.epochs=10";;
  hide_in_vegetation) sel="features.texture_windows=[7] learner.cost_exponent=1 learner.costs=linear learner.kind=online learner.online.lambda=0.03 loss.scale=1 learner.online.epochs=4";;
  cross_country) sel="features.texture_windows=[7,31,95] learner.cost_exponent=2 learner.costs=linear learner.kind=online learner.online.lambda=0.03 loss.scale=1 learner.online.epochs=4";;
  amphibious) sel="features.texture_windows=[7] learner.cost_exponent=4 learner.kind=learch learner.learch.depth=3 learner.learch.start=uniform learner.learch.step=0.5 loss.scale=1 learner.learch.rounds=4";;
esac
args=(--set select=null --set evaluation.class_mean=true --set features.normalise=$n)
for s in $sel; do args+=(--set "$s"); done
/usr/bin/time -f "%e s" nice build/bin/mmp train configs/$b.yaml --output-dir out/imagestats/${b}_$n "${args[@]}"
