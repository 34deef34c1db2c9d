// The teaching page's downloads (internal to mmp_serve): the adapted model, an image's demonstrations as
// the CSV `mmp adapt` reads, its cost map as a 32-bit float GeoTIFF and as a Nav2 map (a tar of map.yaml,
// map.pgm and map.levels.csv, with the lethal options of `mmp costmap --nav2`).  Each is written by the
// library's own writer into the server's temporary folder and read back; the folder is never named by a
// request.
#pragma once

#include "serve_state.hpp"

#include <mmp/maps/training/adaptation.hpp>

#include <optional>

namespace mmp::serve {

Response downloadModel(ServeState& state);
/// The image's taught demonstrations, or with `marks` its marks of that kind, as the CSV
/// `mmp adapt --demonstrations` / `--avoid` / `--prefer` read.
Response downloadDemonstrations(ServeState& state, ImageSlot& slot, std::optional<MarkKind> marks);
Response downloadCostRaster(ServeState& state, ImageSlot& slot);
/// Query: scale=log|linear, origin=world|local, lethal_above=COST or lethal_quantile=Q (not both).
Response downloadNav2(ServeState& state, ImageSlot& slot, const Request& request);

}  // namespace mmp::serve
