#include <mmp/core/model_file.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mmp {
namespace {

constexpr char kMagic[8] = {'M', 'M', 'P', 'M', 'O', 'D', 'E', 'L'};
constexpr char kEndMarker[8] = {'M', 'M', 'P', 'E', 'N', 'D', '!', '!'};
// Lengths above this are treated as corruption rather than attempted as allocations.
constexpr std::uint64_t kMaxLength = std::uint64_t{1} << 32;

class Writer {
 public:
  void bytes(const void* data, std::size_t n) {
    if (n > 0) buffer_.append(static_cast<const char*>(data), n);  // an empty array has no data pointer
  }
  template <class T> void pod(T value) { bytes(&value, sizeof value); }
  void string(const std::string& s) {
    pod<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  void doubles(const double* values, std::size_t n) {
    pod<std::uint64_t>(n);
    bytes(values, n * sizeof(double));
  }
  const std::string& buffer() const { return buffer_; }

 private:
  std::string buffer_;
};

class Reader {
 public:
  Reader(std::string data, std::string path) : data_(std::move(data)), path_(std::move(path)) {}

  void bytes(void* out, std::size_t n, const char* what) {
    if (data_.size() - offset_ < n) {
      throw ModelFileError("model file '" + path_ + "' is truncated: it ends at byte " +
                           std::to_string(data_.size()) + " while reading " + what +
                           " (the file is incomplete; write it again)");
    }
    if (n > 0) std::memcpy(out, data_.data() + offset_, n);
    offset_ += n;
  }
  template <class T> T pod(const char* what) {
    T value;
    bytes(&value, sizeof value, what);
    return value;
  }
  std::uint64_t length(const char* what) {
    const auto n = pod<std::uint64_t>(what);
    if (n > kMaxLength || n > data_.size()) {
      throw ModelFileError("model file '" + path_ + "' is corrupt: " + what + " claims " + std::to_string(n) +
                           " entries, more than the file holds");
    }
    return n;
  }
  std::string string(const char* what) {
    std::string s(length(what), '\0');
    bytes(s.data(), s.size(), what);
    return s;
  }
  std::vector<double> doubles(const char* what) {
    std::vector<double> v(length(what));
    bytes(v.data(), v.size() * sizeof(double), what);
    return v;
  }
  std::size_t offset() const { return offset_; }
  const char* data() const { return data_.data(); }
  std::size_t size() const { return data_.size(); }

 private:
  std::string data_;
  std::string path_;
  std::size_t offset_ = 0;
};

std::string systemError() { return std::strerror(errno); }

// Throws unless every value is finite, naming the array and the entry.
void requireFinite(const std::vector<double>& values, const std::string& path, const std::string& what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      std::ostringstream value;
      value << values[i];
      throw ModelFileError("model file '" + path + "': " + what + " entry " + std::to_string(i) + " is " + value.str() +
                           "; a model holds finite numbers only (retrain it)");
    }
  }
}

}  // namespace

// FNV-1a, 64 bits: every step is a bijection of the state for a given byte, so any change of a single
// byte changes the sum; that is the fault it is there for (a flipped or overwritten byte).
std::uint64_t checksum(const char* data, std::size_t n, std::uint64_t state) {
  for (std::size_t i = 0; i < n; ++i) {
    state ^= static_cast<unsigned char>(data[i]);
    state *= 0x100000001B3ull;
  }
  return state;
}

std::string fileChecksum(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "' to fingerprint it");
  std::uint64_t state = kChecksumStart;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    state = checksum(buffer.data(), static_cast<std::size_t>(in.gcount()), state);
  }
  if (in.bad()) throw Error("cannot read '" + path + "' to fingerprint it");
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(state));
  return hex;
}

void saveModel(const std::string& path, const Model& model) {
  if (!model.feature_names.empty() &&
      model.feature_names.size() != static_cast<std::size_t>(model.weights.size())) {
    throw ModelFileError("model for '" + path + "' has " + std::to_string(model.feature_names.size()) +
                         " feature names for " + std::to_string(model.weights.size()) +
                         " weights; give one name per weight or none");
  }
  if (!model.weights.allFinite()) {
    throw ModelFileError("model for '" + path + "' has a weight that is not a finite number; not written");
  }
  for (const auto& [key, values] : model.arrays) {
    for (double v : values) {
      if (!std::isfinite(v)) throw ModelFileError("model for '" + path + "': array '" + key + "' holds a value that is not a finite number; not written");
    }
  }
  if (model.version < kOldestModelFormatVersion || model.version > kModelFormatVersion) {
    throw ModelFileError("model for '" + path + "': format version " + std::to_string(model.version) + " is not in [" +
                         std::to_string(kOldestModelFormatVersion) + ", " + std::to_string(kModelFormatVersion) +
                         "]; not written");
  }
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.pod<std::uint32_t>(model.version);
  w.doubles(model.weights.data(), static_cast<std::size_t>(model.weights.size()));
  w.pod<std::uint64_t>(model.feature_names.size());
  for (const auto& name : model.feature_names) w.string(name);
  w.pod<std::uint64_t>(model.settings.size());
  for (const auto& [key, value] : model.settings) {
    w.string(key);
    w.string(value);
  }
  w.pod<std::uint64_t>(model.arrays.size());
  for (const auto& [key, values] : model.arrays) {
    w.string(key);
    w.doubles(values.data(), values.size());
  }
  w.pod<std::uint64_t>(checksum(w.buffer().data(), w.buffer().size()));
  w.bytes(kEndMarker, sizeof kEndMarker);
  try {
    writeFileAtomically(path, w.buffer());
  } catch (const Error& e) {
    throw ModelFileError(std::string("model file: ") + e.what());
  }
}

Model loadModel(const std::string& path, std::optional<Eigen::Index> expected_dimension) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw ModelFileError("'" + path + "' is a folder, not a model file (give the model.mmp in it)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelFileError("cannot open model file '" + path + "' (" + systemError() + ")");
  std::ostringstream content;
  content << in.rdbuf();
  Reader r(content.str(), path);

  char magic[sizeof kMagic] = {};
  if (r.size() < sizeof kMagic || (r.bytes(magic, sizeof magic, "the magic"), std::memcmp(magic, kMagic, sizeof kMagic) != 0)) {
    throw ModelFileError("'" + path + "' is not an mmp model file: it does not start with \"MMPMODEL\"");
  }
  const auto version = r.pod<std::uint32_t>("the format version");
  if (version > kModelFormatVersion) {
    throw ModelFileError("model file '" + path + "' has format version " + std::to_string(version) +
                         ", newer than this library's " + std::to_string(kModelFormatVersion) +
                         ": upgrade mmp to read it");
  }
  if (version == 0) throw ModelFileError("model file '" + path + "' is corrupt: format version 0");
  if (version < kOldestModelFormatVersion) {
    throw ModelFileError("model file '" + path + "' has format version " + std::to_string(version) +
                         ", written by an older mmp without a checksum: retrain the model with this one");
  }

  Model model;
  model.version = version;
  const std::vector<double> weights = r.doubles("the weights");
  if (expected_dimension && static_cast<Eigen::Index>(weights.size()) != *expected_dimension) {
    throw ModelFileError("model file '" + path + "' has dimension " + std::to_string(weights.size()) +
                         " but " + std::to_string(*expected_dimension) +
                         " is needed here (features changed?): retrain or re-export the model");
  }
  model.weights = Eigen::Map<const Eigen::VectorXd>(weights.data(), static_cast<Eigen::Index>(weights.size()));
  const auto names = r.length("the feature-name count");
  for (std::uint64_t i = 0; i < names; ++i) model.feature_names.push_back(r.string("a feature name"));
  const auto settings = r.length("the settings count");
  for (std::uint64_t i = 0; i < settings; ++i) {
    std::string key = r.string("a setting name");
    model.settings[key] = r.string("a setting value");
  }
  const auto arrays = r.length("the array count");
  for (std::uint64_t i = 0; i < arrays; ++i) {
    std::string key = r.string("an array name");
    model.arrays[key] = r.doubles("an array");
  }
  const std::size_t summed = r.offset();
  const auto stored_sum = r.pod<std::uint64_t>("the checksum");
  char end[sizeof kEndMarker];
  r.bytes(end, sizeof end, "the end marker");
  if (std::memcmp(end, kEndMarker, sizeof end) != 0 || r.offset() != r.size()) {
    throw ModelFileError("model file '" + path + "' is corrupt: the end marker is missing or followed by extra bytes");
  }
  if (stored_sum != checksum(r.data(), summed)) {
    throw ModelFileError("model file '" + path + "' is corrupt: its checksum does not match its contents (it was "
                         "changed after it was written); write it again or retrain");
  }
  // Before the weights are checked: a bad weight's message names its feature.
  if (!model.feature_names.empty() && model.feature_names.size() != weights.size()) {
    throw ModelFileError("model file '" + path + "' is corrupt: " + std::to_string(model.feature_names.size()) +
                         " feature names for " + std::to_string(weights.size()) + " weights");
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i])) {
      std::ostringstream value;
      value << weights[i];
      throw ModelFileError("model file '" + path + "': weight " + std::to_string(i) +
                           (model.feature_names.empty() ? "" : " ('" + model.feature_names[i] + "')") + " is " +
                           value.str() + "; a model holds finite weights only (retrain it)");
    }
  }
  for (const auto& [key, values] : model.arrays) requireFinite(values, path, "array '" + key + "'");
  return model;
}

}  // namespace mmp
