// The pictures the teaching page draws (internal to mmp_serve): a region of an image or of its cost map,
// never larger than a bound on its long side (the page gets an overview of a 60 Mpx image and regions at
// full resolution when zoomed in, never the whole raster), the colour ramp of the legend, and the tar
// archive a Nav2 map is downloaded as.
#pragma once

#include <mmp/planning/cost_grid.hpp>

#include <opencv2/core.hpp>

#include <string>
#include <utility>
#include <vector>

namespace mmp::serve {

/// Pixels [x0, x1) x [y0, y1) of an image.
struct PixelRegion {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
};

/// The region of a BGR image, shrunk (area averaging) so that its long side is at most max_px; never enlarged.
cv::Mat imagePicture(const cv::Mat& bgr, const PixelRegion& region, int max_px);

/// The cells of `grid` that cover the pixel region (whole cells, clipped to the grid), as a pixel region.
PixelRegion cellCover(const CostGrid& grid, const PixelRegion& region);

/// The cost map over the cells of `cover` (a cellCover): one pixel a cell, shrunk to at most max_px on the long
/// side; BGRA, inferno by log cost between low and high (dark = cheap), impassable cells in impassableColour(),
/// cells without data (grid.unknown) transparent.
cv::Mat costPicture(const CostGrid& grid, const PixelRegion& cover, int max_px, double low, double high);

/// The legend's colour ramp: 256 x 1 px, the cheapest colour at the left.
cv::Mat legendPicture();

/// The picture encoded as ".png" or ".jpg"; throws mmp::Error if OpenCV cannot.
std::string encodePicture(const cv::Mat& picture, const std::string& extension);

/// A POSIX tar archive (ustar) of (name, bytes) files; names of at most 99 plain characters.
std::string tarArchive(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace mmp::serve
