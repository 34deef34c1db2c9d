// Rules that make cells of a learned cost map lethal for a navigation stack.  Learned costs are
// finite, so a map exported for Nav2 (nav2_map.hpp) has no obstacle but the impassable cells unless a
// rule a user chooses marks some: every cell dearer than a cost (Nav2MapSettings::lethal_above), the
// dearest share of the passable cells (passableCostQuantile gives that cost), or the cells a mask
// marks (lethalCellsFromMask, e.g. a water mask).  `mmp costmap --lethal-above / --lethal-quantile /
// --lethal-mask` and a Nav2 plugin call the same functions.
#pragma once

#include <mmp/planning/cost_grid.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mmp {

/*!
    requires: 0 <= q <= 1 (throws mmp::InvalidArgument otherwise, NaN included)
    ensures: returns the cost below which a share q of the passable (finite) cells lie: the passable
             cost at rank floor(q (n - 1)) of the n in increasing order; +inf if no cell is passable.
             Given as Nav2MapSettings::lethal_above, the cells above it (a share of about 1 - q) are lethal.
!*/
double passableCostQuantile(const std::vector<double>& costs, double q);

/*!
    requires: grid is the cost map of an image of image_cols x image_rows pixels; every value in 0..255
    ensures: reads `path` (a PNG or JPEG of one 8-bit channel, such as a class-index mask) and returns
             one byte a cell of grid (row-major): 1 where any pixel of the cell holds one of `values`
             (any non-zero value when `values` is empty), else 0; for Nav2MapSettings::lethal.
             Throws mmp::DataError naming the path if it cannot be read, is damaged or truncated, has
             more than one channel or more than 8 bits, or is not the image's size; mmp::InvalidArgument
             for a value outside 0..255.
!*/
std::vector<std::uint8_t> lethalCellsFromMask(const std::string& path, const CostGrid& grid, int image_cols,
                                              int image_rows, const std::vector<int>& values = {});

}  // namespace mmp
