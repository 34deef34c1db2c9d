// TrainingDomain: compact statistics of the image cells a cost model was trained on, to tell an image
// unlike them before its cost map misleads anyone.
//
// Colour: each cell of cell_size x cell_size pixels is reduced to its mean colour (R, G, B), quantised
// to kLevels levels per channel: one of kLevels^3 colour bins.  The domain keeps how many training cells
// fell in each bin.  A cell of another image is *familiar* in colour if its bin, or a bin one level away
// in each channel (a 3 x 3 x 3 neighbourhood: a tolerance of one level, 256 / kLevels grey values, for
// lighting and sensor shifts), holds at least kMinShare of the training cells; else it is *outside*.
// The colours are the one input every cost model reads (the stacked features and the network both
// start from them), so a cell outside is a cell the model never saw anything like.
//
// Texture (colour and contrast): the image is also cut into blocks of kTextureBlock x kTextureBlock
// cells (16 px at 4 px cells), each block's contrast measured as the standard deviation of its grey
// values (luma) and quantised on a log scale: below 2, 2-4, 4-8, 8-16, 16-32, 32 and above (kContrastEdges).
// Each cell of a whole block whose pixels all have data gets a joint bin: its mean colour at
// kTextureColourLevels levels per channel (coarser than above) x its block's contrast level.  A cell
// is familiar in texture if a joint bin at its contrast level and one colour level away in each channel
// holds at least kMinShare of the training cells.  It sees what colour alone misses: statistics of the
// sand districts (Dubai tiles 1 and 2) warn on 20 of the other 45 Dubai parts with texture, on none with
// colours alone: dark open water (sea, lakes), as dark as the districts' shadows and asphalt but
// smooth over 16 px as they never are (tools/bench/bench_familiarity.cpp, docs/navigation.md).
//
//   const mmp::Familiarity f = model.familiarity(image);        // cost_model.hpp
//   if (f.warns()) std::puts(f.describe().c_str());
//
// Thresholds: an image warns when more than kWarnShare of its cells are outside in colour, or more
// than kTextureWarnShare of its textured cells outside in texture (docs/navigation.md gives the measured
// shares and the command, tools/bench/bench_familiarity.cpp).  Arrangement beyond a 16 px block (layout)
// is not seen.  An image also warns when its cells fall in fewer than kFewColours colour bins: no
// photograph is that uniform, and a class-index label mask (values 0..5, all near black) given as the
// image would otherwise pass.  Models saved before texture was kept hold colour statistics only: their
// check reads colours, and says that texture was not checked.
#pragma once

#include <mmp/core/model_file.hpp>

#include <opencv2/core.hpp>

#include <array>
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
  /// Warn when more than this share of the cells checked for texture is outside in colour and
  /// contrast.  Chosen as kWarnShare was (`bench_familiarity`, docs/navigation.md): with each of the
  /// Dubai tiles 1, 2, 4, 5, 6 left out of the statistics in turn, its parts had at most 0.066 % of
  /// their textured cells outside; 0.2 % leaves a margin of three over that.
  static constexpr double kTextureWarnShare = 0.002;
  static constexpr int kColourBins = 16 * 16 * 16;
  long long cells = 0;    ///< cells with data that were checked
  long long outside = 0;  ///< of them, cells whose colour no training cell was near
  bool known = false;     ///< false: the model holds no training statistics (made before they were kept)
  std::bitset<kColourBins> colours;  ///< the colour bins the checked cells fell in
  /// false: the model holds colour statistics only (made before texture was kept): texture unchecked.
  bool texture_known = false;
  int texture_block_px = 0;        ///< the side of a texture block in px (0: texture unchecked)
  long long textured = 0;          ///< cells checked for texture: those of whole blocks whose pixels all have data
  long long texture_outside = 0;   ///< of them, cells whose colour and block contrast no training cell was near

  double share() const { return cells > 0 ? static_cast<double>(outside) / static_cast<double>(cells) : 0.0; }
  double textureShare() const {
    return textured > 0 ? static_cast<double>(texture_outside) / static_cast<double>(textured) : 0.0;
  }
  bool fewColours() const {
    return known && cells >= kFewColoursCells && colours.count() < static_cast<std::size_t>(kFewColours);
  }
  bool textureWarns() const { return known && texture_known && textureShare() > kTextureWarnShare; }
  bool warns() const { return known && (share() > kWarnShare || textureWarns() || fewColours()); }
  /// One line: "0.02 % of the image's 40000 cells have colours unlike every training cell (warning
  /// above 1 %); 1.50 % of its 39936 cells in whole 16 px blocks have a colour and contrast unlike every
  /// training cell's (warning above 0.2 %): ... its costs there are guesses", or why nothing can be said.
  std::string describe() const;
};

class TrainingDomain {
 public:
  static constexpr int kLevels = 16;
  static constexpr int kBins = kLevels * kLevels * kLevels;
  static_assert(kBins == Familiarity::kColourBins, "Familiarity counts the domain's bins");
  /// A bin counts as seen if it holds at least this share of the training cells.
  static constexpr double kMinShare = 1e-5;
  /// Texture: the colour levels per channel of a joint bin, the block side in cells, and the grey
  /// standard deviations that separate the contrast levels (a level per factor of two).
  static constexpr int kTextureColourLevels = 8;
  static constexpr int kTextureColourBins = kTextureColourLevels * kTextureColourLevels * kTextureColourLevels;
  static constexpr int kTextureBlock = 4;
  static constexpr std::array<double, 5> kContrastEdges = {2.0, 4.0, 8.0, 16.0, 32.0};

  /// An empty domain (no statistics: familiarity() says unknown).
  TrainingDomain() = default;
  /// A domain that keeps colour and texture statistics of cells of cell_size px (blocks of
  /// kTextureBlock cells, contrast levels kContrastEdges).
  explicit TrainingDomain(int cell_size);
  /// Other texture settings (tools/bench/bench_familiarity.cpp compares them): blocks of texture_block
  /// cells (0: no texture statistics), contrast edges ascending and > 0 (1 to 15 of them).  Throws
  /// mmp::InvalidArgument otherwise.
  TrainingDomain(int cell_size, int texture_block, std::vector<double> contrast_edges);

  bool empty() const { return cells_ == 0; }
  int cellSize() const { return cell_size_; }
  /// Training cells counted.
  long long cells() const { return cells_; }
  /// Whether it keeps texture statistics (false for a domain read from a model saved before them).
  bool hasTexture() const { return texture_block_ > 0; }
  /// The side of a texture block in cells (0 without texture statistics).
  int textureBlock() const { return texture_block_; }
  /// Training cells counted for texture (those of whole blocks).
  long long textureCells() const { return texture_cells_; }

  /// Counts the cells of a CV_8UC3 BGR image (the cells whose pixels all have data: valid != 0, or
  /// all if valid is empty; trailing pixels that fill no cell are left out, as the features do).
  /// Throws mmp::InvalidArgument if the image is not CV_8UC3 or valid not CV_8UC1 of its size.
  /// Texture: the cells of whole texture blocks whose pixels all have data are also counted per joint
  /// bin (colour x block contrast).
  void add(const cv::Mat& bgr, const cv::Mat& valid = {});
  /// Adds the counts of another domain (the statistics of both images' sets).  Throws
  /// mmp::InvalidArgument if their cell sizes or texture settings differ.
  void merge(const TrainingDomain& other);
  /// The cells of `bgr` checked against this domain, added to `into` (known set to !empty(),
  /// texture_known to hasTexture()).  The image is cut into cells and texture blocks from its row 0:
  /// a band of an image must start at a block boundary (a multiple of textureBlock() cells).
  void check(const cv::Mat& bgr, const cv::Mat& valid, Familiarity& into) const;

  /// Writes settings "domain.cell_size", "domain.cells" and arrays "domain.bins", "domain.counts"
  /// (the bins that hold cells, and their counts); with texture also settings "domain.texture_block",
  /// "domain.texture_cells" and arrays "domain.texture_edges" (the contrast levels' edges),
  /// "domain.texture_bins", "domain.texture_counts".
  void store(Model& model) const;
  /// The domain stored in a model; empty if it holds none, without texture if it holds no
  /// domain.texture_* entries (a model saved before they were kept).  Throws mmp::DataError naming the
  /// entry if it is damaged (a bin out of range, counts that do not match, edges not ascending).
  static TrainingDomain fromModel(const Model& model);

 private:
  static int bin(double r, double g, double b);
  /// Marks every bin whose 3 x 3 x 3 neighbourhood holds a seen bin, colour and joint.
  void updateNear();
  int textureLevels() const { return static_cast<int>(texture_edges_.size()) + 1; }
  /// The contrast level of a grey standard deviation: how many edges it reaches.
  int contrastLevel(double deviation) const;
  /// Calls visit(colour bin, joint bin or -1) for each cell of the image whose pixels all have data:
  /// -1 for a cell outside a whole texture block with data (or for every cell without texture).
  template <typename Visit>
  void forEachCell(const cv::Mat& bgr, const cv::Mat& valid, Visit&& visit) const;

  int cell_size_ = 1;
  long long cells_ = 0;
  std::vector<long long> counts_;  ///< kBins, empty while no cell was added
  std::vector<bool> near_;         ///< kBins: familiar bins
  int texture_block_ = 0;          ///< cells per block side; 0: no texture statistics
  std::vector<double> texture_edges_;      ///< ascending grey standard deviations between contrast levels
  long long texture_cells_ = 0;
  std::vector<long long> texture_counts_;  ///< kTextureColourBins x textureLevels(), empty while no cell was added
  std::vector<bool> texture_near_;         ///< likewise: familiar joint bins
};

}  // namespace mmp
