// Fuzz entry points: one function per file format mmp reads, shared by the libFuzzer executables
// (fuzz_main.cpp, built with -DMMP_BUILD_FUZZERS=ON under Clang) and the replay suite
// (test_fuzz_regressions.cpp, built with the tools in every build).
//
// The contract under test: on ANY bytes, a loader returns or throws mmp::Error.  Each entry function
// writes the bytes to a temporary file (one per process and target, under $TMPDIR), runs the loader
// and what a command does next with its result, and catches mmp::Error only: any other exception, a
// crash, a sanitizer report, a hang or a huge allocation escapes to the fuzzer or the test.
//
//   model_file     CostModel::load (loadModel, FeatureStack::fromModel, the trees) -> map a small image
//                  -> CostModel::costs (as `mmp plan`);
//                  the bytes as given, then with their checksum made to match (else few mutations
//                  would get past it)
//   train_config   loadTrainConfig (relative paths start at the config's folder, which holds only it)
//   demonstration  readDemonstrationFile on the bytes as .csv and as .yaml, then pathCells on a grid
//   letters        readMaybeGzip -> parseLetters -> groupWords
//   multilabel     readLibsvmMultilabel -> multilabelModel (up to 8 labels); the bytes as a MULAN ARFF
//                  with two labels (readMulanArff) and as a MULAN XML label file (parseMulanLabels)
//   pairs          readPairRecords
//   image          loadImage, loadLabelMask (index and colour classes), cellLabels
//   geotiff        bytes that start as a TIFF or BigTIFF -> loadGeoImage through GDAL (pixel types,
//                  bands, alpha, nodata, geotransform, CRS) -> a small model's cost map of it (nodata
//                  cells unknown) -> the cost raster's values (rasterCosts), as `mmp costmap --raw`;
//                  other bytes are skipped: GDAL would try every driver on them (VRT, network paths)
//   serve          the teaching page's request handler (mmp::serve::ServeApi::handle) on a request made of
//                  the bytes: "METHOD PATH?query" on the first line, the body after it; a small model and
//                  image; any answer but a 5xx, and a 4xx with a JSON error message, is a pass
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mmp::fuzz {

int fuzzModelFile(const std::uint8_t* data, std::size_t size);
int fuzzTrainConfig(const std::uint8_t* data, std::size_t size);
int fuzzDemonstration(const std::uint8_t* data, std::size_t size);
int fuzzLetters(const std::uint8_t* data, std::size_t size);
int fuzzMultilabel(const std::uint8_t* data, std::size_t size);
int fuzzPairs(const std::uint8_t* data, std::size_t size);
int fuzzImage(const std::uint8_t* data, std::size_t size);
int fuzzGeoTiff(const std::uint8_t* data, std::size_t size);
int fuzzServe(const std::uint8_t* data, std::size_t size);

using EntryFunction = int (*)(const std::uint8_t*, std::size_t);

struct Target {
  const char* name;  ///< folder name under corpus/, regressions/ and pending/; executable fuzz_<name>
  EntryFunction run;
};

/// Every target, in the order above.
const std::vector<Target>& targets();

}  // namespace mmp::fuzz
