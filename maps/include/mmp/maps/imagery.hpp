// Imagery and label masks: reading aerial images (PNG, JPEG, TIFF) and per-pixel class masks, and
// reducing a mask to the cells of a feature map.
//
// An image is returned as 8-bit BGR (OpenCV's order): grey images are expanded, an alpha channel is
// dropped and 16-bit images are scaled to 8 bits, so every later step sees one format.  A label mask
// is either an index mask (one 8-bit channel holding each pixel's class index) or a colour-coded mask
// (every pixel one of the declared class colours, matched exactly; palette PNGs are expanded by the
// reader).  Both come back as one 8-bit channel of class indices.  Errors name the file, the pixel
// and what would be valid.
#pragma once

#include <mmp/maps/georeference.hpp>

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// One class of a label mask: its name, the value it has in index masks, and (optionally) its
/// colour in colour-coded masks as RGB.
struct LabelClass {
  std::string name;
  int index = 0;                                     ///< 0..255, unique within a class list
  std::optional<std::array<std::uint8_t, 3>> rgb;    ///< needed only for colour-coded masks
};

/// Parses "#RRGGBB" (or "RRGGBB"); throws mmp::InvalidArgument naming the text otherwise.
std::array<std::uint8_t, 3> parseHexColour(const std::string& text);
std::string hexColour(const std::array<std::uint8_t, 3>& rgb);

/// ensures: returns the image as CV_8UC3 BGR, under the rules of every mmp image (PNG and JPEG
/// decoded by OpenCV and libjpeg, TIFF and BigTIFF by GDAL): 8- or 16-bit values, 1 or 3 bands, alpha
/// only when the file flags it (dropped here; loadGeoImage keeps which pixels lack data).  Throws
/// mmp::DataError naming the path if it cannot be read or decoded, breaks those rules, or is empty.
cv::Mat loadImage(const std::string& path);

/// An image read top to bottom a band of rows at a time, for images larger than memory: a JPEG is
/// decoded scanline by scanline (libjpeg, any size JPEG allows); any other format is read whole
/// (loadGeoImage) and handed out in bands.  Rows come as 8-bit BGR, as loadImage gives them; frame()
/// is the image's world frame (readWorldFrame, with `plain` for images without a georeference).
class ImageRows {
 public:
  /// Throws mmp::DataError naming the path if it cannot be opened or its header is damaged.
  explicit ImageRows(const std::string& path, const FrameSettings& plain = {});
  ~ImageRows();
  ImageRows(const ImageRows&) = delete;
  ImageRows& operator=(const ImageRows&) = delete;

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  /// Rows handed out so far.
  int next() const { return next_; }
  const WorldFrame& frame() const { return frame_; }
  /// The whole image's pixels without data (GeoImage::valid); empty if every pixel has data (a
  /// streamed JPEG always).
  const cv::Mat& valid() const { return valid_; }
  /// GeoImage::note of the image (a grey JPEG: that its grey is taken as colour).
  const std::string& note() const { return note_; }
  /// The next min(count, rows() - next()) rows (CV_8UC3).  Throws mmp::DataError naming the path and
  /// the row if the data are damaged or cut short (some damage shows only once the last row is read).
  cv::Mat read(int count);

 private:
  struct Jpeg;
  void close();

  std::string path_;
  int rows_ = 0, cols_ = 0, next_ = 0;
  Jpeg* jpeg_ = nullptr;  // a JPEG being decoded, else whole_ holds the image
  cv::Mat whole_;
  cv::Mat valid_;
  std::string note_;
  WorldFrame frame_;
};

/*!
    requires: classes non-empty, indices unique in [0, 255]
    ensures
        - returns a CV_8UC1 mask of class indices (the `index` of the matched class)
        - a one-channel file is an index mask: every value must be a declared index
        - a three- or four-channel file is a colour mask: every pixel must match a declared colour
        - throws mmp::DataError naming the path, the first offending pixel (row, col) and the valid
          values or colours
!*/
cv::Mat loadLabelMask(const std::string& path, const std::vector<LabelClass>& classes);

/// Throws mmp::DataError, naming `name` (e.g. "label mask 'a.png'"), the first pixel (row, col) and the
/// declared indices, unless `mask` is CV_8UC1 and every value a declared class index: what an index
/// mask read by loadLabelMask, or one a program holds in memory, must be.
void checkIndexMask(const cv::Mat& mask, const std::vector<LabelClass>& classes, const std::string& name);

/// Checks class lists: non-empty, unique names and indices in [0, 255]; throws mmp::InvalidArgument.
void validateClasses(const std::vector<LabelClass>& classes);

/*!
    The class of each cell of cell_size x cell_size pixels: the most frequent index in the block
    (the lowest index on ties).  Cells follow the feature stack's grid: rows = mask.rows / cell_size,
    cols = mask.cols / cell_size (trailing pixels that do not fill a cell are dropped).
    requires: mask CV_8UC1, cell_size >= 1, at least one whole cell.
    ensures: returns rows * cols class indices, row-major.
!*/
std::vector<std::uint8_t> cellLabels(const cv::Mat& mask, int cell_size);

}  // namespace mmp
