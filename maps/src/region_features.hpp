// Region features (FeatureSettings::region_window, see feature_stack.hpp): per cell, the statistics
// of the unsupervised segment it lies in, segments found within fixed windows aligned to the whole
// image's cell grid.  Private to maps: computeRawFeatures appends them after the blurred features.
#pragma once

#include <mmp/maps/feature_stack.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace mmp {

/*!
    requires: settings valid with region_window > 0; cells: the mean colour of each cell (CV_32FC3, BGR
              in [0, 1]); detail: each cell's within-cell standard deviation of grey (CV_32FC1, same
              size); origin: the top-left cell's place in the whole image (cells, >= 0)
    ensures: one CV_32FC1 channel of cells.size() per name of regionFeatureNames(settings), in order.
             A cell's values depend only on the cells of its window (the window clipped to the image),
             so a piece of the image holding the whole window gives the same values bit for bit.
!*/
std::vector<cv::Mat> regionChannels(const cv::Mat& cells, const cv::Mat& detail, const FeatureSettings& settings,
                                    cv::Point origin);

}  // namespace mmp
