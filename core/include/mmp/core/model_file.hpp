// Model files: learned weights plus what is needed to use and to reproduce them.
//
// Layout (little-endian): magic "MMPMODEL", u32 format version, u64 dimension, f64 weights[d],
// feature names, settings (string -> string), named arrays (string -> f64[]), u64 checksum
// (FNV-1a over every byte before it), end marker "MMPEND!!".
// Writing is atomic (writeFileAtomically): a crash or a full disk never leaves a half-written model
// behind.  Reading refuses a wrong magic, an older (unchecksummed) or newer version, a dimension
// mismatch, a truncated file, a checksum that does not match, and weights or arrays that are not
// finite, each with its own message.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// The newest format this library reads and writes.  2 added the checksum.  3 is written only for a
/// model that a reader of version 2 would misread, silently (a cost map's cost exponent), so that
/// such a reader refuses it; every other model is still written as version 2.
constexpr std::uint32_t kModelFormatVersion = 3;
constexpr std::uint32_t kOldestModelFormatVersion = 2;  ///< the oldest this library reads

struct Model {
  /// Saving: the version written, the oldest that reads this model right (in [kOldestModelFormatVersion,
  /// kModelFormatVersion]).  Loading: the file's.
  std::uint32_t version = kOldestModelFormatVersion;
  Eigen::VectorXd weights;
  std::vector<std::string> feature_names;                ///< empty, or one per weight
  std::map<std::string, std::string> settings;           ///< what produced the model
  std::map<std::string, std::vector<double>> arrays;     ///< e.g. feature scaling
};

/// FNV-1a (64 bits) of n bytes, continuing from `state`: the model file's checksum; also the
/// fingerprint of the data files in a model's provenance (fileChecksum).
constexpr std::uint64_t kChecksumStart = 0xCBF29CE484222325ull;
std::uint64_t checksum(const char* data, std::size_t n, std::uint64_t state = kChecksumStart);
/// checksum() of a file's bytes as 16 hex digits; throws mmp::Error naming the file if it cannot be read.
std::string fileChecksum(const std::string& path);

/// Throws mmp::ModelFileError naming the path if it cannot be written or the model holds a non-finite
/// number; the target is untouched then.
void saveModel(const std::string& path, const Model& model);

/// Throws mmp::ModelFileError naming the path and the fault.  If expected_dimension is given, a
/// model of another dimension is refused.
Model loadModel(const std::string& path, std::optional<Eigen::Index> expected_dimension = std::nullopt);

}  // namespace mmp
