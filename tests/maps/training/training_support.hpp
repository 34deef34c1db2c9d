// Helpers for the maps_training tests: pipeline settings on small synthetic scenes, besides the maps
// tests' helpers.
#pragma once

#include "maps/maps_support.hpp"

#include <mmp/maps/training/settings.hpp>

#include <cstdint>
#include <limits>

namespace mmp::test {

/// A synthetic scene of size x size pixels with 3 roads and 30 building attempts.
inline RegionSpec scene(std::uint64_t seed, int size = 256) {
  RegionSpec r = RegionSpec::scene(seed);
  r.synthetic->rows = r.synthetic->cols = size;
  r.synthetic->roads = 3;
  r.synthetic->buildings = 30;
  return r;
}

/// Small synthetic scenes: two for training, two held out; follow_road, the batch learner on one thread.
inline PipelineSettings syntheticSettings() {
  PipelineSettings s;
  s.behaviour = Behaviour::make("follow_road", s.classes,
                                {{"Road", 1}, {"Land", 6}, {"Vegetation", 8},
                                 {"Water", std::numeric_limits<double>::infinity()}, {"Building", 40}},
                                "Road");
  s.train = {scene(1), scene(2)};
  s.holdout = {scene(3), scene(4)};
  s.features.cell_size = 4;
  s.features.blur_sigmas = {0, 8};
  s.features.texture_windows = {7};
  s.features.bins = 5;
  s.features.complements = false;
  s.demonstrations = {10, 100.0, 1, {}};
  s.learner.kind = LearnerKind::Batch;
  s.learner.batch.lambda = 1e-4;
  s.learner.batch.stop.max_iterations = 60;
  s.learner.batch.steps = StepSchedule::constant(1.0);
  s.learner.batch.threads = 1;
  s.evaluation.pairs = 20;
  s.evaluation.min_separation_px = 100;
  s.classifier.iterations = 40;
  s.classifier.samples = 4000;
  return s;
}

}  // namespace mmp::test
