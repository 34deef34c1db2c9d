// The training statistics of a cost model (maps/training_domain.hpp) and the familiarity check that
// warns about images unlike the training images: scenes of the training kind pass, other colours warn;
// the statistics survive the model file, bands count as the whole image, damage is refused by name.
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
  Familiarity banded;
  for (int top = 0; top < image.rows; top += 32) domain.check(image.rowRange(top, top + 32), {}, banded);
  CHECK(banded.cells == whole.cells);
  CHECK(banded.outside == whole.outside);

  cv::Mat valid(image.size(), CV_8UC1, cv::Scalar(255));
  valid.at<std::uint8_t>(0, 0) = 0;     // cell (0, 0)
  valid.at<std::uint8_t>(127, 127) = 0; // cell (31, 31)
  Familiarity masked;
  domain.check(image, valid, masked);
  CHECK(masked.cells == whole.cells - 2);
  CHECK_THROWS_AS(domain.check(image, cv::Mat(3, 3, CV_8UC1), masked), InvalidArgument);
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
                       doctest::Contains("training statistics (domain.*) are damaged: entry 0 (bin 4096"), DataError);
  file.arrays.erase("domain.counts");
  saveModel(dir.file("damaged.mmp"), file);
  CHECK_THROWS_WITH_AS(CostModel::load(dir.file("damaged.mmp")), doctest::Contains("domain.bins and domain.counts"),
                       DataError);

  const CostModel old = test::randomCostModel(image, 3);  // made without statistics
  CHECK_FALSE(old.familiarity(other).known);
}
