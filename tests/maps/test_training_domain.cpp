// The training statistics of a cost model (maps/training_domain.hpp) and the familiarity check that
// warns about images unlike the training images: scenes of the training kind pass, other colours warn,
// the training colours in another texture warn; the statistics survive the model file, bands count as
// the whole image, a model saved before texture was kept checks colours only and says so, damage is
// refused by name.
#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/training_domain.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace mmp;

namespace {

// The image with every pixel's blue raised and red lowered: a scene of other colours (sea for land).
cv::Mat bluer(const cv::Mat& image) {
  cv::Mat out = image.clone();
  out.forEach<cv::Vec3b>([](cv::Vec3b& px, const int*) {
    px[0] = cv::saturate_cast<std::uint8_t>(px[0] + 90);
    px[2] = cv::saturate_cast<std::uint8_t>(px[2] - 90);
  });
  return out;
}

// Blocks of 16 x 16 px, each of one colour of a palette of ten mid-tones (none near 0 or 255); with
// `contrast`, a checkerboard of +-contrast grey values over each block: every 4 px cell keeps its
// block's mean colour, every block's grey standard deviation is `contrast`.
cv::Mat patchwork(int rows, int cols, int contrast) {
  const cv::Vec3b palette[] = {{70, 150, 110}, {120, 120, 120}, {180, 160, 90}, {90, 90, 170}, {150, 180, 170},
                               {100, 70, 60},  {60, 100, 180},  {190, 190, 190}, {140, 60, 140}, {80, 180, 80}};
  cv::Mat out(rows, cols, CV_8UC3);
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < cols; ++x) {
      const cv::Vec3b base = palette[((y / 16) * 7 + (x / 16) * 3) % 10];
      const int delta = (x + y) % 2 == 0 ? contrast : -contrast;
      for (int c = 0; c < 3; ++c) out.at<cv::Vec3b>(y, x)[c] = cv::saturate_cast<std::uint8_t>(base[c] + delta);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("familiarity: a scene of the training kind passes, one of other colours warns, a model without statistics says so") {
  TrainingDomain domain(4);
  domain.add(test::syntheticImage(256, 256, 1));
  domain.add(test::syntheticImage(256, 256, 2));
  CHECK(domain.cells() == 2 * 64 * 64);

  Familiarity same;
  domain.check(test::syntheticImage(256, 256, 3), {}, same);
  CHECK(same.known);
  CHECK(same.cells == 64 * 64);
  CHECK(same.share() < Familiarity::kWarnShare);
  CHECK_FALSE(same.warns());

  Familiarity other;
  domain.check(bluer(test::syntheticImage(256, 256, 3)), {}, other);
  CHECK(other.share() > 0.5);
  CHECK(other.warns());
  CHECK(other.describe().find("unlike what the model learned from") != std::string::npos);

  // A class-index label mask given as the image: a few near-black values, one colour bin.
  cv::Mat mask(256, 256, CV_8UC3, cv::Scalar(0, 0, 0));
  mask(cv::Rect(0, 0, 128, 256)).setTo(cv::Scalar(3, 3, 3));
  Familiarity flat;
  domain.check(mask, {}, flat);
  CHECK(flat.colours.count() == 1);
  CHECK(flat.fewColours());
  CHECK(flat.warns());
  CHECK(flat.describe().find("only 1 of 4096 colours") != std::string::npos);
  CHECK(flat.describe().find("label mask") != std::string::npos);
  CHECK_FALSE(same.fewColours());
  CHECK(same.colours.count() >= static_cast<std::size_t>(Familiarity::kFewColours));

  Familiarity none;
  TrainingDomain().check(test::syntheticImage(64, 64, 3), {}, none);
  CHECK_FALSE(none.known);
  CHECK_FALSE(none.warns());
  CHECK(none.describe().find("no statistics") != std::string::npos);
}

TEST_CASE("familiarity: cells without data are left out, bands of whole cells add up to the whole image") {
  TrainingDomain domain(4);
  domain.add(test::syntheticImage(128, 128, 1));
  const cv::Mat image = bluer(test::syntheticImage(128, 130, 5));  // 2 px beyond the last whole cell
  Familiarity whole;
  domain.check(image, {}, whole);
  CHECK(whole.cells == 32 * 32);
  CHECK(whole.textured == 32 * 32);  // 130 rows: 32 cells, 8 blocks of 4 cells
  Familiarity banded;
  for (int top = 0; top < image.rows; top += 32) domain.check(image.rowRange(top, top + 32), {}, banded);  // 2 blocks a band
  CHECK(banded.cells == whole.cells);
  CHECK(banded.outside == whole.outside);
  CHECK(banded.textured == whole.textured);
  CHECK(banded.texture_outside == whole.texture_outside);

  cv::Mat valid(image.size(), CV_8UC1, cv::Scalar(255));
  valid.at<std::uint8_t>(0, 0) = 0;     // cell (0, 0)
  valid.at<std::uint8_t>(127, 127) = 0; // cell (31, 31)
  Familiarity masked;
  domain.check(image, valid, masked);
  CHECK(masked.cells == whole.cells - 2);
  CHECK(masked.textured == whole.textured - 2 * 16);  // the two blocks holding them
  CHECK_THROWS_AS(domain.check(image, cv::Mat(3, 3, CV_8UC1), masked), InvalidArgument);
}

TEST_CASE("familiarity: the training colours in another texture warn with texture, not with colours alone") {
  TrainingDomain domain(4);
  domain.add(patchwork(256, 256, 0));  // smooth blocks
  CHECK(domain.hasTexture());
  CHECK(domain.textureCells() == 64 * 64);

  Familiarity smooth;
  domain.check(patchwork(256, 256, 0), {}, smooth);
  CHECK(smooth.texture_known);
  CHECK(smooth.texture_block_px == 16);
  CHECK(smooth.textured == 64 * 64);
  CHECK(smooth.texture_outside == 0);
  CHECK_FALSE(smooth.warns());

  Familiarity textured;  // the same mean colour in every cell, blocks of grey deviation 50
  domain.check(patchwork(256, 256, 50), {}, textured);
  CHECK(textured.outside == 0);                    // colours alone: all familiar
  CHECK(textured.share() <= Familiarity::kWarnShare);
  CHECK_FALSE(textured.fewColours());
  CHECK(textured.texture_outside == textured.textured);  // colour and contrast: none
  CHECK(textured.textureWarns());
  CHECK(textured.warns());
  CHECK(textured.describe().find("100.00 % of its 4096 cells in whole 16 px blocks have a colour and contrast unlike") !=
        std::string::npos);
  CHECK(textured.describe().find("unlike what the model learned from") != std::string::npos);

  // The same statistics without texture (a model saved before it was kept): no warning, and it says so.
  const TrainingDomain colours_only(4, 0, {});
  TrainingDomain old = colours_only;
  old.add(patchwork(256, 256, 0));
  Familiarity unchecked;
  old.check(patchwork(256, 256, 50), {}, unchecked);
  CHECK_FALSE(unchecked.texture_known);
  CHECK(unchecked.textured == 0);
  CHECK_FALSE(unchecked.warns());
  CHECK(unchecked.describe().find("texture not checked") != std::string::npos);

  // Statistics merged are those of both images' sets.
  TrainingDomain a(4), b(4), both(4);
  a.add(patchwork(128, 128, 0));
  b.add(patchwork(64, 128, 50));
  both.add(patchwork(128, 128, 0));
  both.add(patchwork(64, 128, 50));
  a.merge(b);
  CHECK(a.cells() == both.cells());
  CHECK(a.textureCells() == both.textureCells());
  Familiarity merged, added;
  a.check(patchwork(128, 128, 25), {}, merged);
  both.check(patchwork(128, 128, 25), {}, added);
  CHECK(merged.texture_outside == added.texture_outside);
  CHECK(merged.outside == added.outside);
  CHECK_THROWS_AS(a.merge(old), InvalidArgument);
  CHECK_THROWS_AS(TrainingDomain(4, 4, {4.0, 2.0}), InvalidArgument);
}

TEST_CASE("training statistics survive the model file, and damaged ones are refused naming the entry") {
  const cv::Mat image = test::syntheticImage(128, 128, 1);
  CostModel model = test::randomCostModel(image, 3);
  TrainingDomain domain(4);
  domain.add(image);
  model.setDomain(domain);
  test::TempDir dir;
  model.save(dir.file("model.mmp"));
  const CostModel loaded = CostModel::load(dir.file("model.mmp"));
  CHECK(loaded.domain().cells() == domain.cells());
  const cv::Mat other = bluer(test::syntheticImage(128, 128, 2));
  CHECK(loaded.familiarity(other).outside == model.familiarity(other).outside);
  const auto summary = loaded.summary();
  const auto entry = std::find_if(summary.begin(), summary.end(), [](const auto& e) { return e.first == "training_statistics"; });
  REQUIRE(entry != summary.end());
  CHECK(entry->second.find(std::to_string(domain.cells()) + " training cells") == 0);
  CHECK(loaded.info().count("domain.cells") == 0);  // statistics, not info

  Model file = loadModel(dir.file("model.mmp"));
  file.arrays["domain.bins"][0] = TrainingDomain::kBins;
  saveModel(dir.file("damaged.mmp"), file);
  CHECK_THROWS_WITH_AS(CostModel::load(dir.file("damaged.mmp")),
                       doctest::Contains("training statistics (domain.*) are damaged: domain.bins entry 0 (bin 4096"), DataError);
  file.arrays.erase("domain.counts");
  saveModel(dir.file("damaged.mmp"), file);
  CHECK_THROWS_WITH_AS(CostModel::load(dir.file("damaged.mmp")), doctest::Contains("domain.bins and domain.counts"),
                       DataError);

  const CostModel old = test::randomCostModel(image, 3);  // made without statistics
  CHECK_FALSE(old.familiarity(other).known);
}

TEST_CASE("texture statistics: an older model without them checks colours and says so, damaged ones are named") {
  const cv::Mat image = patchwork(128, 128, 0);
  CostModel model = test::randomCostModel(image, 3);
  TrainingDomain domain(4);
  domain.add(image);
  model.setDomain(domain);
  test::TempDir dir;
  model.save(dir.file("model.mmp"));
  const Model file = loadModel(dir.file("model.mmp"));
  for (const char* key : {"domain.texture_block", "domain.texture_cells"}) CHECK(file.settings.count(key) == 1);
  for (const char* key : {"domain.texture_edges", "domain.texture_bins", "domain.texture_counts"}) CHECK(file.arrays.count(key) == 1);
  const cv::Mat rough = patchwork(128, 128, 50);
  const CostModel loaded = CostModel::load(dir.file("model.mmp"));
  CHECK(loaded.domain().textureCells() == domain.textureCells());
  CHECK(loaded.familiarity(rough).texture_outside == model.familiarity(rough).texture_outside);
  CHECK(loaded.familiarity(rough).warns());

  // As mmp before texture statistics wrote it: the colour entries only.
  Model older = file;
  older.settings.erase("domain.texture_block");
  older.settings.erase("domain.texture_cells");
  for (const char* key : {"domain.texture_edges", "domain.texture_bins", "domain.texture_counts"}) older.arrays.erase(key);
  saveModel(dir.file("older.mmp"), older);
  const CostModel old = CostModel::load(dir.file("older.mmp"));
  CHECK_FALSE(old.domain().hasTexture());
  CHECK(old.domain().cells() == domain.cells());
  const Familiarity f = old.familiarity(rough);
  CHECK(f.known);
  CHECK_FALSE(f.texture_known);
  CHECK_FALSE(f.warns());
  CHECK(f.describe().find("texture not checked (the model keeps colour statistics only") != std::string::npos);
  const auto summary = old.summary();
  const auto entry = std::find_if(summary.begin(), summary.end(), [](const auto& e) { return e.first == "training_statistics"; });
  REQUIRE(entry != summary.end());
  CHECK(entry->second.find("no texture statistics") != std::string::npos);
  old.save(dir.file("resaved.mmp"));  // saved again: still colours only, not empty texture entries
  CHECK(loadModel(dir.file("resaved.mmp")).settings.count("domain.texture_block") == 0);

  const auto refused = [&](Model damaged, const std::string& entry_named) {
    saveModel(dir.file("damaged.mmp"), damaged);
    const std::string expected = "training statistics (domain.*) are damaged: " + entry_named;
    CHECK_THROWS_WITH_AS(CostModel::load(dir.file("damaged.mmp")), doctest::Contains(expected.c_str()), DataError);
  };
  Model damaged = file;
  damaged.settings["domain.texture_block"] = "four";
  refused(damaged, "domain.texture_block is 'four'");
  damaged = file;
  damaged.arrays["domain.texture_edges"] = {2.0, 8.0, 4.0};
  refused(damaged, "domain.texture_edges must hold");
  damaged = file;
  damaged.arrays.erase("domain.texture_edges");
  refused(damaged, "domain.texture_edges must hold");
  damaged = file;
  damaged.arrays["domain.texture_bins"][0] = TrainingDomain::kTextureColourBins * 6;
  refused(damaged, "domain.texture_bins entry 0 (bin 3072");
  damaged = file;
  damaged.arrays["domain.texture_counts"][0] = 0.5;
  refused(damaged, "domain.texture_bins entry 0");
  damaged = file;
  damaged.arrays["domain.texture_counts"][0] = 9e14;
  damaged.arrays["domain.texture_counts"][1] = 9e14;
  refused(damaged, "domain.texture_counts add up to more than 1e15 cells by entry 1");
  damaged = file;
  damaged.arrays.erase("domain.texture_counts");
  refused(damaged, "domain.texture_bins and domain.texture_counts");
  damaged = older;
  damaged.settings.erase("domain.cell_size");
  damaged.settings["domain.texture_block"] = "4";
  refused(damaged, "domain.texture_block is present without domain.cell_size");
}
