// FloatTiffWriter: a one-channel 32-bit float TIFF written band by band, for cost maps larger than
// memory (CostModel::bandCosts, writeCostRaster).
//
//   FloatTiffWriter out("costs.tiff", rows, cols);
//   for (each band of rows, top to bottom) out.write(values, band_rows);   // row-major floats
//   out.finish();                                                          // atomic: see AtomicFile
//
// Uncompressed strips of the bands' rows; the directory follows the pixels, so the file is written
// front to back without seeking.  Files of 4 GiB or more are BigTIFF (libtiff, GDAL and OpenCV read
// both).  Impassable cells are written as +inf, which the file declares as nodata; with a world frame
// (georeference()) it is a GeoTIFF that GIS tools place over the imagery.  Both are added by GDAL
// when the file is finished (writeGeoreference); a device or a pipe gets the plain TIFF.
#pragma once

#include <mmp/core/file_io.hpp>
#include <mmp/core/world_frame.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mmp {

class FloatTiffWriter {
 public:
  /// requires: rows, cols >= 1.  Throws mmp::Error if the file cannot be created.  big_tiff: BigTIFF
  /// even when the file would be smaller than 4 GiB.
  FloatTiffWriter(const std::string& path, long long rows, long long cols, bool big_tiff = false);

  /// Appends `count` whole rows (count * cols floats, row-major).  Throws mmp::InvalidArgument past
  /// the last row, mmp::Error if writing fails.
  void write(const float* values, long long count);
  /// The frame of the cells (rows x cols of them, resolution per cell) written at finish().
  void georeference(WorldFrame frame) { frame_ = std::move(frame); }
  /// requires: every row written.  Writes the directory and the georeference and replaces the target.
  void finish();

  bool bigTiff() const { return big_; }

 private:
  AtomicFile file_;
  long long rows_, cols_, written_ = 0;
  bool big_;
  std::vector<std::uint64_t> strip_rows_;  // rows of each strip, in order
  WorldFrame frame_;
};

}  // namespace mmp
