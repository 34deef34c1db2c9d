#include <mmp/maps/synthetic_scene.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace mmp {
namespace {

constexpr std::uint8_t kBuilding = 0, kLand = 1, kRoad = 2, kVegetation = 3, kWater = 4;
constexpr double kPi = 3.14159265358979323846;

// An integer in [lo, hi] scaled from a uniform double, as the scenes have always drawn it: Random::below
// would be exactly unbiased but would change every scene of a seed (this one's bias is below
// (hi - lo + 1) / 2^53).
int scaledInteger(Random& rng, int lo, int hi) { return lo + static_cast<int>(rng.uniform() * (hi - lo + 1)); }

// Smooth noise in [0, 1]: random values on coarse grids of the given steps (pixels), upsampled
// bicubically and summed with halving amplitudes, then stretched to [0, 1].
cv::Mat smoothField(Random& rng, int rows, int cols, std::initializer_list<int> steps) {
  cv::Mat field = cv::Mat::zeros(rows, cols, CV_32F);
  double amplitude = 1.0;
  for (int step : steps) {
    cv::Mat coarse(rows / step + 3, cols / step + 3, CV_32F);
    for (int r = 0; r < coarse.rows; ++r) {
      for (int c = 0; c < coarse.cols; ++c) coarse.at<float>(r, c) = static_cast<float>(rng.uniform());
    }
    cv::Mat fine;
    cv::resize(coarse, fine, cv::Size(coarse.cols * step, coarse.rows * step), 0, 0, cv::INTER_CUBIC);
    field += amplitude * fine(cv::Rect(step, step, cols, rows));
    amplitude *= 0.5;
  }
  double lo = 0.0, hi = 1.0;
  cv::minMaxLoc(field, &lo, &hi);
  field = (field - lo) / std::max(hi - lo, 1e-9);
  return field;
}

// The value below which a share `below` of the field lies.
float quantile(const cv::Mat& field, double below) {
  std::vector<float> values(field.begin<float>(), field.end<float>());
  const std::size_t k = std::min(values.size() - 1, static_cast<std::size_t>(below * static_cast<double>(values.size())));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

cv::Point2d borderPoint(Random& rng, int side, int rows, int cols) {
  const double t = rng.uniform(0.15, 0.85);
  switch (side % 4) {
    case 0: return {t * cols, -10.0};
    case 1: return {cols + 10.0, t * rows};
    case 2: return {t * cols, rows + 10.0};
    default: return {-10.0, t * rows};
  }
}

// A gently curving road from a to b: points along the chord, displaced sideways by a smoothed
// random walk that vanishes at both ends.
std::vector<cv::Point> roadCurve(Random& rng, cv::Point2d a, cv::Point2d b) {
  const int pieces = 12;
  const cv::Point2d chord = b - a;
  const double length = std::hypot(chord.x, chord.y);
  const cv::Point2d normal(-chord.y / length, chord.x / length);
  std::vector<double> offset(pieces + 1, 0.0);
  double slope = 0.0;
  for (int i = 1; i <= pieces; ++i) {
    slope = 0.6 * slope + rng.normal() * 0.035 * length / pieces;
    offset[i] = offset[i - 1] + slope;
  }
  std::vector<cv::Point> points;
  for (int i = 0; i <= pieces; ++i) {
    const double t = static_cast<double>(i) / pieces;
    const double bend = offset[i] - t * offset[pieces];  // pinned at both ends
    const cv::Point2d p = a + t * chord + bend * normal;
    points.emplace_back(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
  }
  return points;
}

void validateSceneParams(const SyntheticSceneParams& p) {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw InvalidArgument("synthetic scene: " + what);
  };
  require(p.rows >= 64 && p.cols >= 64 && p.rows <= 8192 && p.cols <= 8192, "rows and cols must lie in [64, 8192]");
  require(p.roads >= 1 && p.roads <= 64, "roads must lie in [1, 64]");
  require(p.vegetation_share >= 0.0 && p.vegetation_share <= 0.8, "vegetation_share must lie in [0, 0.8]");
  require(p.water_share >= 0.0 && p.water_share <= 0.5, "water_share must lie in [0, 0.5]");
  require(p.buildings >= 0 && p.buildings <= 100000, "buildings must lie in [0, 100000]");
  require(p.noise >= 0.0 && p.noise <= 100.0, "noise must lie in [0, 100]");
}

// Terrain: land, lakes, vegetation patches from thresholded smooth fields.
cv::Mat paintTerrain(Random& rng, const SyntheticSceneParams& p) {
  const int rows = p.rows, cols = p.cols;
  cv::Mat labels(rows, cols, CV_8UC1, cv::Scalar(kLand));
  const cv::Mat water_field = smoothField(rng, rows, cols, {160, 80, 40});
  const cv::Mat vegetation_field = smoothField(rng, rows, cols, {64, 32, 16});
  const float water_level = quantile(water_field, 1.0 - p.water_share);
  const float vegetation_level = quantile(vegetation_field, 1.0 - p.vegetation_share);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (p.water_share > 0.0 && water_field.at<float>(r, c) > water_level) labels.at<std::uint8_t>(r, c) = kWater;
      else if (p.vegetation_share > 0.0 && vegetation_field.at<float>(r, c) > vegetation_level) {
        labels.at<std::uint8_t>(r, c) = kVegetation;
      }
    }
  }
  return labels;
}

struct RoadNetwork {
  std::vector<std::vector<cv::Point>> curves;
  std::vector<int> widths;
};

// Roads: the first crosses the scene, each later one branches off an earlier road.
RoadNetwork drawRoads(Random& rng, int count, cv::Mat& labels, int scale) {
  const int rows = labels.rows, cols = labels.cols;
  RoadNetwork network;
  std::vector<std::vector<cv::Point>>& roads = network.curves;
  std::vector<int>& widths = network.widths;
  for (int i = 0; i < count; ++i) {
    cv::Point2d a, b;
    const int side = scaledInteger(rng, 0, 3);
    if (i == 0) {
      a = borderPoint(rng, side, rows, cols);
      b = borderPoint(rng, side + 2, rows, cols);
    } else {
      const auto& from = roads[static_cast<std::size_t>(scaledInteger(rng, 0, static_cast<int>(roads.size()) - 1))];
      const cv::Point q = from[static_cast<std::size_t>(scaledInteger(rng, 2, static_cast<int>(from.size()) - 3))];
      a = cv::Point2d(q.x, q.y);
      b = borderPoint(rng, side, rows, cols);
      if (std::hypot(b.x - a.x, b.y - a.y) < 0.3 * scale) b = borderPoint(rng, side + 2, rows, cols);
    }
    roads.push_back(roadCurve(rng, a, b));
    widths.push_back(std::max(5, static_cast<int>(std::lround(scale * rng.uniform(0.016, 0.026)))));
    cv::polylines(labels, roads.back(), false, cv::Scalar(kRoad), widths.back(), cv::LINE_8);
  }
  return network;
}

// Whether a footprint, grown by two pixels, stays off road, water and other buildings.
bool footprintIsClear(const cv::Mat& labels, const cv::Mat& footprint, const cv::Rect& bounds) {
  cv::Mat grown;
  cv::dilate(footprint(bounds), grown, cv::Mat::ones(5, 5, CV_8U));
  bool clear = true;
  for (int r = bounds.y; clear && r < bounds.y + bounds.height; ++r) {
    for (int c = bounds.x; c < bounds.x + bounds.width; ++c) {
      const std::uint8_t l = labels.at<std::uint8_t>(r, c);
      if (grown.at<std::uint8_t>(r - bounds.y, c - bounds.x) && (l == kRoad || l == kWater || l == kBuilding)) {
        clear = false;
        break;
      }
    }
  }
  return clear;
}

// Buildings beside the roads, aligned with them; refused where they would touch road or water.
// Returns the roof colours (BGR) under each building.
cv::Mat placeBuildings(Random& rng, int attempts, const RoadNetwork& network, cv::Mat& labels, int scale) {
  const int rows = labels.rows, cols = labels.cols;
  const std::vector<std::vector<cv::Point>>& roads = network.curves;
  cv::Mat roof(rows, cols, CV_8UC3, cv::Scalar(0, 0, 0));
  // Roof colours (BGR): white, terracotta, blue metal, brown tile, pale pink.
  const cv::Scalar palette[] = {{228, 230, 232}, {80, 96, 178}, {176, 138, 96}, {52, 70, 120}, {190, 190, 228}};
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const std::size_t k = static_cast<std::size_t>(scaledInteger(rng, 0, static_cast<int>(roads.size()) - 1));
    const auto& road = roads[k];
    const int j = scaledInteger(rng, 0, static_cast<int>(road.size()) - 2);
    const double t = rng.uniform();
    const cv::Point2d a(road[static_cast<std::size_t>(j)]), b(road[static_cast<std::size_t>(j) + 1]);
    const cv::Point2d d = b - a;
    const double length = std::max(1e-9, std::hypot(d.x, d.y));
    const cv::Point2d along(d.x / length, d.y / length), across(-along.y, along.x);
    const double w = scale * rng.uniform(0.03, 0.07), h = scale * rng.uniform(0.03, 0.06);
    const double gap = network.widths[k] / 2.0 + scale * rng.uniform(0.01, 0.035) + h / 2.0;
    const cv::Point2d centre = a + t * d + (rng.uniform() < 0.5 ? -gap : gap) * across;
    const cv::RotatedRect box(centre, cv::Size2f(static_cast<float>(w), static_cast<float>(h)),
                              static_cast<float>(std::atan2(along.y, along.x) * 180.0 / kPi));
    cv::Point2f corners[4];
    box.points(corners);
    std::vector<cv::Point> polygon;
    for (const cv::Point2f& q : corners) polygon.emplace_back(static_cast<int>(std::lround(q.x)), static_cast<int>(std::lround(q.y)));
    const cv::Rect bounds = cv::boundingRect(polygon) & cv::Rect(0, 0, cols, rows);
    if (bounds.area() == 0) continue;
    cv::Mat footprint = cv::Mat::zeros(rows, cols, CV_8UC1);
    cv::fillConvexPoly(footprint, polygon, cv::Scalar(1));
    if (!footprintIsClear(labels, footprint, bounds)) continue;
    labels.setTo(cv::Scalar(kBuilding), footprint);
    roof.setTo(palette[scaledInteger(rng, 0, 4)], footprint);
  }
  return roof;
}

// A colour and a texture per class.
cv::Mat colourClasses(Random& rng, const cv::Mat& labels, const cv::Mat& roof) {
  const int rows = labels.rows, cols = labels.cols;
  const cv::Mat light = smoothField(rng, rows, cols, {96, 48});        // large-scale brightness
  const cv::Mat crowns = smoothField(rng, rows, cols, {6, 3});         // tree crowns
  const cv::Mat grain = smoothField(rng, rows, cols, {12, 4});         // sand and roof grain
  cv::Mat image(rows, cols, CV_32FC3);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const float l = light.at<float>(r, c), g = grain.at<float>(r, c);
      cv::Vec3f bgr;
      switch (labels.at<std::uint8_t>(r, c)) {
        case kWater: bgr = cv::Vec3f(120, 88, 40) * (0.9f + 0.15f * l + 0.05f * g); break;
        case kVegetation: {
          const float crown = crowns.at<float>(r, c);
          bgr = cv::Vec3f(45, 100, 62) * (0.45f + 1.0f * crown + 0.15f * l);
          break;
        }
        case kRoad: bgr = cv::Vec3f(98, 100, 104) * (0.92f + 0.1f * g); break;
        case kBuilding: {
          const cv::Vec3b roof_colour = roof.at<cv::Vec3b>(r, c);
          bgr = cv::Vec3f(roof_colour[0], roof_colour[1], roof_colour[2]) * (0.93f + 0.12f * g);
          break;
        }
        default: bgr = cv::Vec3f(150, 182, 208) * (0.8f + 0.3f * l + 0.12f * g); break;
      }
      image.at<cv::Vec3f>(r, c) = bgr;
    }
  }
  return image;
}

// Shadows: the building footprints shifted down-right, darkening what they fall on.
void castShadows(const cv::Mat& labels, int scale, cv::Mat& image) {
  const int rows = labels.rows, cols = labels.cols;
  cv::Mat buildings = labels == kBuilding;
  const int shift = std::max(2, scale / 120);
  cv::Mat shadow = cv::Mat::zeros(rows, cols, CV_8UC1);
  buildings(cv::Rect(0, 0, cols - shift, rows - shift)).copyTo(shadow(cv::Rect(shift, shift, cols - shift, rows - shift)));
  shadow &= ~buildings;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (shadow.at<std::uint8_t>(r, c)) image.at<cv::Vec3f>(r, c) *= 0.55f;
    }
  }
}

// Road markings: dashed centre lines on the wider roads, only where the label is road.
void paintRoadMarkings(const RoadNetwork& network, const cv::Mat& labels, cv::Mat& image) {
  const int rows = labels.rows, cols = labels.cols;
  const std::vector<std::vector<cv::Point>>& roads = network.curves;
  cv::Mat marking = cv::Mat::zeros(rows, cols, CV_8UC1);
  for (std::size_t k = 0; k < roads.size(); ++k) {
    if (network.widths[k] < 8) continue;
    for (std::size_t j = 0; j + 1 < roads[k].size(); ++j) {
      const cv::Point2d a(roads[k][j]), b(roads[k][j + 1]);
      const double length = std::hypot(b.x - a.x, b.y - a.y);
      for (double s = 0.0; s + 6.0 < length; s += 16.0) {
        const cv::Point2d p = a + (s / length) * (b - a), q = a + ((s + 6.0) / length) * (b - a);
        cv::line(marking, cv::Point(cv::Point2d(p)), cv::Point(cv::Point2d(q)), cv::Scalar(1), 1, cv::LINE_8);
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (marking.at<std::uint8_t>(r, c) && labels.at<std::uint8_t>(r, c) == kRoad) {
        image.at<cv::Vec3f>(r, c) = cv::Vec3f(205, 210, 215);
      }
    }
  }
}

void addSensorNoise(Random& rng, double noise, cv::Mat& image) {
  for (int r = 0; r < image.rows; ++r) {
    for (int c = 0; c < image.cols; ++c) {
      cv::Vec3f& px = image.at<cv::Vec3f>(r, c);
      for (int ch = 0; ch < 3; ++ch) px[ch] += static_cast<float>(noise * rng.normal());
    }
  }
}

}  // namespace

std::vector<LabelClass> syntheticClasses() {
  return {{"Building", 0, std::array<std::uint8_t, 3>{60, 16, 152}},
          {"Land", 1, std::array<std::uint8_t, 3>{132, 41, 246}},
          {"Road", 2, std::array<std::uint8_t, 3>{110, 193, 228}},
          {"Vegetation", 3, std::array<std::uint8_t, 3>{254, 221, 58}},
          {"Water", 4, std::array<std::uint8_t, 3>{226, 169, 41}}};
}

SyntheticScene makeSyntheticScene(const SyntheticSceneParams& p) {
  validateSceneParams(p);
  Random rng(p.seed * 0x2545F4914F6CDD1Dull + 1);
  const int scale = std::min(p.rows, p.cols);
  cv::Mat labels = paintTerrain(rng, p);
  const RoadNetwork roads = drawRoads(rng, p.roads, labels, scale);
  const cv::Mat roof = placeBuildings(rng, p.buildings, roads, labels, scale);
  // Render: a colour and a texture per class, then shadows, road markings, noise and blur.
  cv::Mat image = colourClasses(rng, labels, roof);
  castShadows(labels, scale, image);
  paintRoadMarkings(roads, labels, image);
  cv::GaussianBlur(image, image, cv::Size(0, 0), 0.7);
  addSensorNoise(rng, p.noise, image);
  SyntheticScene scene;
  image.convertTo(scene.image, CV_8UC3);  // saturating
  scene.labels = labels;
  return scene;
}

}  // namespace mmp
