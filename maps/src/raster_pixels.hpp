// What the two image readers (imagery.cpp: OpenCV and libjpeg; georeference.cpp: GDAL) share, so that
// every image reaches the features in one format and under one size limit.  Private to maps/.
#pragma once

#include <opencv2/core.hpp>

#include <string>

namespace mmp::detail {

// The most pixels an image read whole may have: checked against the size its header declares before
// anything is allocated, so that a small damaged file cannot ask for gigabytes (384 MiB of BGR; the
// Dubai tiles have 3.2 million pixels).
constexpr double kMaxImagePixels = 1 << 27;

// The one set of rules for imagery, whatever the container (PNG, JPEG, classic TIFF, BigTIFF,
// GeoTIFF, any raster GDAL reads):
//   - pixel types: 8- or 16-bit unsigned integers; floating-point and signed values are refused
//     (their range is unknown: scaling them would invent terrain).  16-bit samples are scaled by
//     their bit depth: the file's NBITS if GDAL reports one, else the least of 8, 10, 12, 14 and 16
//     bits that holds the largest sample with data (12-bit data in a 16-bit image: by 255 / 4095,
//     not 255 / 65535, which would leave it almost black); the note says which
//   - bands: 1 (grey), 3 (red, green, blue), or either followed by an alpha band, which is alpha
//     only when the file flags it so (PNG's RGBA and grey-alpha; TIFF ExtraSamples, GDAL's
//     GCI_AlphaBand); any other band count or an unflagged fourth band is refused
//   - no data: pixels the raster declares without data (its nodata value in every band, an internal
//     mask, alpha 0) are marked in GeoImage::valid, and the cells holding them are unknown
// PNG and JPEG are decoded by OpenCV and libjpeg (and JPEGs streamed), everything else by GDAL.

// A decoded image (1, 2, 3 or 4 channels in OpenCV's order, alpha last; 8 or 16 bits) as 8-bit BGR:
// grey expanded, alpha dropped, 16 bits scaled by their bit depth (`bits`: 0 = the least that holds
// the largest sample where valid != 0, or everywhere if valid is empty).  `note` (if not null) gets
// one line saying what was converted ("" for 8-bit colour).  Throws mmp::DataError naming `path`.
cv::Mat bgr8(cv::Mat raw, const std::string& path, const cv::Mat& valid = {}, int bits = 0, std::string* note = nullptr);

// A PNG or JPEG (what ImageRows streams or loadImage reads by itself) as decoded, before bgr8;
// `what` names it in messages ("image", "label mask").
cv::Mat readRaw(const std::string& path, const char* what);

// True if the file starts as a TIFF or BigTIFF does: read through GDAL.
bool isTiff(const std::string& path);

// A raster through GDAL as bgr8 gives it, under the rules above; `valid` (if not null) becomes the
// CV_8UC1 mask of pixels with data (255) and without (0), or stays empty if every pixel has data.
// Throws mmp::DataError naming `path`.
cv::Mat readGdalImage(const std::string& path, cv::Mat* valid, std::string* note = nullptr);

// The mask of a decoded PNG's alpha channel (raw with 2 or 4 channels): 0 where alpha is 0; empty
// if no pixel is transparent or raw has no alpha.
cv::Mat alphaValid(const cv::Mat& raw);

}  // namespace mmp::detail
