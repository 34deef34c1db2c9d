// A procedurally generated aerial scene with a per-pixel label mask, made by mmp itself so that the
// demo and the tests need no external data.
//
// The scene is a patch of sandy open land with smooth brightness variation, one or more lakes, patches
// of vegetation with tree-crown texture, a connected road network (border to border, later roads
// branching off earlier ones; asphalt with dashed centre lines, bridges over water) and buildings
// beside the roads (rectangles aligned with the road, roof colours from a palette, cast shadows),
// then sensor noise and a slight blur.  The labels use the classes of the Dubai aerial data set
// (syntheticClasses(): 0 Building, 1 Land, 2 Road, 3 Vegetation, 4 Water) with the same colours.
// The scene is a deterministic function of its parameters: the same seed gives the same pixels (the
// random numbers come from mmp::Random, core's SplitMix64 generator, the same with every standard
// library, not from <random>'s distributions, whose output the standard leaves to the implementation).
#pragma once

#include <mmp/maps/imagery.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

namespace mmp {

struct SyntheticSceneParams {
  int rows = 512, cols = 512;       ///< pixels, each >= 64
  std::uint64_t seed = 1;
  int roads = 4;                    ///< >= 1; the first crosses the scene, the others branch off
  double vegetation_share = 0.22;   ///< rough share of vegetation before roads and buildings, [0, 0.8]
  double water_share = 0.08;        ///< rough share of water, [0, 0.5]
  int buildings = 80;               ///< placement attempts (some are refused where they would overlap)
  double noise = 6.0;               ///< sensor noise standard deviation in 8-bit grey levels, >= 0
};

struct SyntheticScene {
  cv::Mat image;   ///< CV_8UC3 BGR
  cv::Mat labels;  ///< CV_8UC1 class indices of syntheticClasses()
};

/// The label classes of the synthetic scene (Dubai indices and colours, without Unlabeled).
std::vector<LabelClass> syntheticClasses();

/// Throws mmp::InvalidArgument naming the first parameter out of range.
SyntheticScene makeSyntheticScene(const SyntheticSceneParams& params);

}  // namespace mmp
