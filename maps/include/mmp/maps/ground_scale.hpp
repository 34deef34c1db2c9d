// Features in metres: a model whose training imagery had a declared ground resolution
// (FeatureSettings::ground_resolution, metres per pixel) computes the features of an image at another
// resolution on the image resampled to its own, so that its cells, blurs and texture windows see the
// ground they saw in training; each cell of the image then takes the features (and costs) of the
// resampled image's cell under its centre.  The cost map stays on the image's own grid of
// cell_size-pixel cells, so plans, demonstrations and labels keep their pixel coordinates.
//
//   const mmp::FeatureSettings& f = model.features().settings();
//   const double factor = mmp::groundFactor(f, image_resolution, "area.tif");
//   if (factor != 1.0) {
//     const cv::Mat seen = mmp::resampleToGround(image, factor, f.upsample);  // as the model saw its imagery
//     const auto sources = mmp::groundCellSources(image.size(), seen.size(), cell_size);
//   }
//
// A resolution of 0 is unknown: the image is taken as it comes (factor 1), as before this option.
#pragma once

#include <mmp/core/world_frame.hpp>
#include <mmp/maps/feature_stack.hpp>

#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace mmp {

/// The most an image's resolution may differ from the model's either way (a factor of 8: a 0.25 m
/// model on 2 m imagery); beyond it the cells see too little or too much of the ground to mean the same.
inline constexpr double kMaxGroundFactor = 8.0;

/*!
    ensures
        - image_resolution / model_resolution (> 1: the image is coarser than the model's imagery), or
          1 if either is 0 (not known) or they agree within 1e-6 of each other
        - throws mmp::InvalidArgument naming `what`, both resolutions and the valid range if either is
          negative or not finite, or the factor lies outside [1 / kMaxGroundFactor, kMaxGroundFactor]
!*/
double groundFactor(double model_resolution, double image_resolution, const std::string& what);
/// The factor by which features under `settings` resample an image of image_resolution: groundFactor
/// of settings.ground_resolution, or 1 for a coarser image (factor > 1) if settings.upsample is "none".
double groundFactor(const FeatureSettings& settings, double image_resolution, const std::string& what);

/// The metres per pixel of a frame (per pixel), 0 if it has no world frame or its CRS is geographic
/// (degrees: not a ground distance; geographicFault says how to reproject).
double metresPerPixel(const WorldFrame& pixel_frame);

/// The image (CV_8UC3, or CV_8UC1 for a mask) as the model sees it: round(cols x factor) by round(rows x
/// factor) pixels, by area averaging where it shrinks (a finer image) and bicubic (upsample "cubic")
/// or bilinear interpolation where it grows (a coarser one); a CV_8UC1 mask by its nearest pixel.
/// requires: factor > 0.
cv::Mat resampleToGround(const cv::Mat& image, double factor, const std::string& upsample);

/// For each cell of an image of `image` pixels cut in cell_size-pixel cells (rows x cols = image /
/// cell_size, row-major), the index of the cell of the resampled image (`seen` pixels, the same cell
/// size) that holds the cell's centre, clamped to the resampled image's whole cells.
/// requires: both sizes hold at least one whole cell (else mmp::InvalidArgument).
std::vector<int> groundCellSources(cv::Size image, cv::Size seen, int cell_size);

}  // namespace mmp
