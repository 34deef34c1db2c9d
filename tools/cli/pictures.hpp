// Pictures of taught and learned cost maps that `mmp adapt` and `mmp train` (from paths alone) write:
// the map with the demonstrations (cyan) and the model's A* plans between their ends (red).
#pragma once

#include <mmp/maps/cost_model.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace mmp::tools {

/// The cost map of `grid` on the log colour scale [low, high] with the demonstrations and the plans.
cv::Mat taughtPicture(const CostGrid& grid, const std::vector<std::vector<int>>& demos, double low, double high);
/// The parent's and the adapted model's maps side by side on one colour scale, with a legend.
cv::Mat teachingPicture(const CostGrid& before, const CostGrid& after, const std::vector<std::vector<int>>& demos, int taught);
/// One learned map with its demonstrations and plans, with a legend (`title` above it).
cv::Mat fitPicture(const CostGrid& grid, const std::vector<std::vector<int>>& demos, const std::string& title);

}  // namespace mmp::tools
