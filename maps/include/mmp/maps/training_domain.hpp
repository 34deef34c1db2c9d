// TrainingDomain: compact statistics of the image cells a cost model was trained on, to tell an image
// unlike them before its cost map misleads anyone.
//
// Each cell of cell_size x cell_size pixels is reduced to its mean colour (R, G, B), quantised to
// kLevels levels per channel: one of kLevels^3 colour bins.  The domain keeps how many training cells
// fell in each bin.  A cell of another image is *familiar* if its bin, or a bin one level away in
// each channel (a 3 x 3 x 3 neighbourhood: a tolerance of one level, 256 / kLevels grey values, for
// lighting and sensor shifts), holds at least kMinShare of the training cells; else it is *outside*.
// The colours are the one input every cost model reads (the stacked features and the network both
// start from them), so a cell outside is a cell the model never saw anything like.
//
//   const mmp::Familiarity f = model.familiarity(image);        // cost_model.hpp
//   if (f.warns()) std::puts(f.describe().c_str());
//
// Threshold: an image warns when more than kWarnShare of its cells are outside (docs/cost-maps.md
// gives the measured shares: real models on their own holdout parts, the synthetic model on them).
// Colours only: an image of familiar colours in unfamiliar arrangements (texture, layout) passes.  It
// also warns when its cells fall in fewer than kFewColours bins: no photograph is that uniform, and a
// class-index label mask (values 0..5, all near black) given as the image would otherwise pass.
#pragma once

#include <mmp/core/model_file.hpp>

#include <opencv2/core.hpp>

#include <bitset>
#include <string>
#include <vector>

namespace mmp {

/// How much of an image a model's TrainingDomain covers.
struct Familiarity {
  /// Warn when more than this share of cells is outside.  Chosen on the training data of the shipped
  /// models (the Dubai tiles 1, 2, 4, 5, 6): with each tile left out of the statistics in turn, its
  /// parts had at most 0.29 % of their cells outside; 1 % leaves a margin of three over that.
  static constexpr double kWarnShare = 0.01;
  /// Warn when an image of at least kFewColoursCells cells fills fewer colour bins than this: each of
  /// the 63 Dubai parts fills 92 or more of the 4096 bins at 4 px cells (median 230), their
  /// class-index masks 1.
  static constexpr int kFewColours = 8;
  static constexpr long long kFewColoursCells = 100;
  static constexpr int kColourBins = 16 * 16 * 16;
  long long cells = 0;    ///< cells with data that were checked
  long long outside = 0;  ///< of them, cells whose colour no training cell was near
  bool known = false;     ///< false: the model holds no training statistics (made before they were kept)
  std::bitset<kColourBins> colours;  ///< the colour bins the checked cells fell in

  double share() const { return cells > 0 ? static_cast<double>(outside) / static_cast<double>(cells) : 0.0; }
  bool fewColours() const {
    return known && cells >= kFewColoursCells && colours.count() < static_cast<std::size_t>(kFewColours);
  }
  bool warns() const { return known && (share() > kWarnShare || fewColours()); }
  /// One line: "12.3 % of the image's 40000 cells have colours unlike every training cell (warning
  /// above 5 %): its costs there are guesses", or why nothing can be said.
  std::string describe() const;
};

class TrainingDomain {
 public:
  static constexpr int kLevels = 16;
  static constexpr int kBins = kLevels * kLevels * kLevels;
  static_assert(kBins == Familiarity::kColourBins, "Familiarity counts the domain's bins");
  /// A bin counts as seen if it holds at least this share of the training cells.
  static constexpr double kMinShare = 1e-5;

  /// An empty domain (no statistics: familiarity() says unknown).
  TrainingDomain() = default;
  explicit TrainingDomain(int cell_size);

  bool empty() const { return cells_ == 0; }
  int cellSize() const { return cell_size_; }
  /// Training cells counted.
  long long cells() const { return cells_; }

  /// Counts the cells of a CV_8UC3 BGR image (the cells whose pixels all have data: valid != 0, or
  /// all if valid is empty; trailing pixels that fill no cell are left out, as the features do).
  /// Throws mmp::InvalidArgument if the image is not CV_8UC3 or valid not CV_8UC1 of its size.
  void add(const cv::Mat& bgr, const cv::Mat& valid = {});
  /// The cells of `bgr` checked against this domain, added to `into` (known set to !empty()).  The
  /// image is cut into cells from its row 0: a band of an image must start at a cell boundary.
  void check(const cv::Mat& bgr, const cv::Mat& valid, Familiarity& into) const;

  /// Writes settings "domain.cell_size", "domain.cells" and arrays "domain.bins", "domain.counts"
  /// (the bins that hold cells, and their counts).
  void store(Model& model) const;
  /// The domain stored in a model; empty if it holds none.  Throws mmp::DataError naming the entry
  /// if it is damaged (a bin out of range, counts that do not match).
  static TrainingDomain fromModel(const Model& model);

 private:
  static int bin(double r, double g, double b);
  /// Marks every bin whose 3 x 3 x 3 neighbourhood holds a seen bin.
  void updateNear();
  template <typename Visit>
  static void forEachCell(const cv::Mat& bgr, const cv::Mat& valid, int cell_size, Visit&& visit);

  int cell_size_ = 1;
  long long cells_ = 0;
  std::vector<long long> counts_;  ///< kBins, empty while no cell was added
  std::vector<bool> near_;         ///< kBins: familiar bins
};

}  // namespace mmp
