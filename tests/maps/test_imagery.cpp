#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/imagery.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

using namespace mmp;

namespace {

std::vector<LabelClass> threeClasses() {
  return {{"Road", 2, std::array<std::uint8_t, 3>{110, 193, 228}},
          {"Land", 1, std::array<std::uint8_t, 3>{132, 41, 246}},
          {"Water", 4, std::array<std::uint8_t, 3>{226, 169, 41}}};
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("images load from PNG, JPEG and TIFF as 8-bit BGR") {
  test::TempDir dir;
  const cv::Mat image = test::randomImage(3, 20, 30);
  for (const char* name : {"a.png", "a.tiff"}) {
    REQUIRE(cv::imwrite(dir.file(name), image));
    const cv::Mat back = loadImage(dir.file(name));
    CHECK(back.type() == CV_8UC3);
    CHECK(cv::norm(back, image, cv::NORM_INF) == 0.0);  // lossless formats round-trip exactly
  }
  REQUIRE(cv::imwrite(dir.file("a.jpg"), image));
  const cv::Mat jpeg = loadImage(dir.file("a.jpg"));
  CHECK(jpeg.type() == CV_8UC3);
  CHECK(jpeg.size() == image.size());

  cv::Mat grey(10, 12, CV_8UC1, cv::Scalar(77)), wide(10, 12, CV_16UC3, cv::Scalar(257 * 9, 257 * 100, 65535));
  REQUIRE(cv::imwrite(dir.file("grey.png"), grey));
  REQUIRE(cv::imwrite(dir.file("wide.png"), wide));
  CHECK(loadImage(dir.file("grey.png")).at<cv::Vec3b>(4, 4) == cv::Vec3b(77, 77, 77));
  CHECK(loadImage(dir.file("wide.png")).at<cv::Vec3b>(4, 4) == cv::Vec3b(9, 100, 255));
  CHECK(loadGeoImage(dir.file("wide.png")).note.find("taken as 16-bit data") != std::string::npos);
  CHECK(loadGeoImage(dir.file("grey.png")).note.find("one band (grey)") == 0);
  CHECK(loadGeoImage(dir.file("a.png")).note.empty());  // 8-bit colour: nothing to say

  // 12-bit data in a 16-bit file is scaled by 255 / 4095, not left almost black by 255 / 65535.
  cv::Mat twelve(10, 12, CV_16UC3, cv::Scalar(0, 2048, 4095));
  twelve.at<cv::Vec3w>(0, 0) = cv::Vec3w(0, 0, 3000);
  REQUIRE(cv::imwrite(dir.file("twelve.png"), twelve));
  CHECK(loadImage(dir.file("twelve.png")).at<cv::Vec3b>(4, 4) == cv::Vec3b(0, 128, 255));
  CHECK(loadGeoImage(dir.file("twelve.png")).note ==
        "16-bit samples taken as 12-bit data (the largest sample is 4095) and scaled by 255 / 4095");
  cv::Mat ten(10, 12, CV_16UC1, cv::Scalar(1023));
  REQUIRE(cv::imwrite(dir.file("ten.png"), ten));
  CHECK(loadImage(dir.file("ten.png")).at<cv::Vec3b>(4, 4) == cv::Vec3b(255, 255, 255));

  CHECK(errorOf([&] { loadImage(dir.file("missing.png")); }).find("missing.png") != std::string::npos);
  std::FILE* junk = std::fopen(dir.file("junk.png").c_str(), "wb");
  std::fputs("not an image", junk);
  std::fclose(junk);
  CHECK_THROWS_AS(loadImage(dir.file("junk.png")), DataError);
}

TEST_CASE("colour-coded and index label masks give the same class indices") {
  test::TempDir dir;
  const auto classes = threeClasses();
  cv::Mat index(6, 8, CV_8UC1, cv::Scalar(1));
  index(cv::Rect(0, 0, 3, 6)).setTo(2);
  index(cv::Rect(6, 4, 2, 2)).setTo(4);
  cv::Mat colour(6, 8, CV_8UC3);
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 8; ++c) {
      for (const LabelClass& k : classes) {
        if (k.index == index.at<std::uint8_t>(r, c)) colour.at<cv::Vec3b>(r, c) = cv::Vec3b((*k.rgb)[2], (*k.rgb)[1], (*k.rgb)[0]);
      }
    }
  }
  REQUIRE(cv::imwrite(dir.file("index.png"), index));
  REQUIRE(cv::imwrite(dir.file("colour.png"), colour));
  const cv::Mat a = loadLabelMask(dir.file("index.png"), classes);
  const cv::Mat b = loadLabelMask(dir.file("colour.png"), classes);
  CHECK(cv::norm(a, index, cv::NORM_INF) == 0.0);
  CHECK(cv::norm(b, index, cv::NORM_INF) == 0.0);

  SUBCASE("an unknown colour names the pixel and the valid colours") {
    colour.at<cv::Vec3b>(3, 5) = cv::Vec3b(1, 2, 3);
    REQUIRE(cv::imwrite(dir.file("bad.png"), colour));
    const std::string message = errorOf([&] { loadLabelMask(dir.file("bad.png"), classes); });
    CHECK(message.find("row 3, col 5") != std::string::npos);
    CHECK(message.find("#030201") != std::string::npos);
    CHECK(message.find("Road #6EC1E4") != std::string::npos);
  }
  SUBCASE("an undeclared index names the pixel and the declared indices") {
    index.at<std::uint8_t>(5, 0) = 3;
    REQUIRE(cv::imwrite(dir.file("bad.png"), index));
    const std::string message = errorOf([&] { loadLabelMask(dir.file("bad.png"), classes); });
    CHECK(message.find("row 5, col 0") != std::string::npos);
    CHECK(message.find("index 3") != std::string::npos);
    CHECK(message.find("2, 1, 4") != std::string::npos);
  }
  SUBCASE("a colour mask needs a colour for every class") {
    auto no_colour = classes;
    no_colour[1].rgb.reset();
    CHECK(errorOf([&] { loadLabelMask(dir.file("colour.png"), no_colour); }).find("'Land' declares no colour") !=
          std::string::npos);
    CHECK_NOTHROW(loadLabelMask(dir.file("index.png"), no_colour));
  }
  SUBCASE("class lists are checked") {
    auto twice = classes;
    twice[2].index = 2;
    CHECK_THROWS_AS(loadLabelMask(dir.file("index.png"), twice), InvalidArgument);
  }
}

TEST_CASE("hex colours parse and print") {
  CHECK(parseHexColour("#3C1098") == std::array<std::uint8_t, 3>{60, 16, 152});
  CHECK(parseHexColour("fedd3a") == std::array<std::uint8_t, 3>{254, 221, 58});
  CHECK(hexColour({226, 169, 41}) == "#E2A929");
  CHECK_THROWS_AS(parseHexColour("#12345"), InvalidArgument);
  CHECK_THROWS_AS(parseHexColour("#12345G"), InvalidArgument);
}

TEST_CASE("cell labels take the most frequent class of each block, the lowest on ties") {
  cv::Mat mask(5, 7, CV_8UC1, cv::Scalar(3));  // 2 x 3 cells of 2 x 2; the last row and col are dropped
  mask.at<std::uint8_t>(0, 0) = 1;
  mask.at<std::uint8_t>(0, 1) = 1;
  mask.at<std::uint8_t>(1, 0) = 1;            // cell (0, 0): three 1s
  mask.at<std::uint8_t>(0, 2) = 0;
  mask.at<std::uint8_t>(0, 3) = 0;            // cell (0, 1): two 0s and two 3s -> 0
  mask(cv::Rect(0, 4, 7, 1)).setTo(9);        // dropped row
  const std::vector<std::uint8_t> cells = cellLabels(mask, 2);
  REQUIRE(cells.size() == 6);
  CHECK(cells[0] == 1);
  CHECK(cells[1] == 0);
  CHECK(cells[2] == 3);
  CHECK(cells[5] == 3);
  CHECK_THROWS_AS(cellLabels(mask, 6), InvalidArgument);
  CHECK_THROWS_AS(cellLabels(mask, 0), InvalidArgument);
}
