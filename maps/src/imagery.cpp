#include <mmp/maps/imagery.hpp>

#include "raster_pixels.hpp"

#include <mmp/core/error.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include <jpeglib.h>

namespace mmp {

// What bgr8 and ImageRows say of a one-band image.
constexpr const char* kGreyNote = "one band (grey): its value taken as red, green and blue";

using detail::kMaxImagePixels;

std::array<std::uint8_t, 3> parseHexColour(const std::string& text) {
  const std::string hex = !text.empty() && text.front() == '#' ? text.substr(1) : text;
  std::array<std::uint8_t, 3> rgb{};
  bool ok = hex.size() == 6;
  for (std::size_t i = 0; ok && i < 3; ++i) {
    int value = 0;
    for (std::size_t j = 0; j < 2; ++j) {
      const char c = hex[2 * i + j];
      int digit = -1;
      if (c >= '0' && c <= '9') digit = c - '0';
      else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      if (digit < 0) ok = false;
      value = value * 16 + digit;
    }
    rgb[i] = static_cast<std::uint8_t>(value);
  }
  if (!ok) throw InvalidArgument("colour '" + text + "' is not of the form #RRGGBB (six hex digits)");
  return rgb;
}

std::string hexColour(const std::array<std::uint8_t, 3>& rgb) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02X%02X%02X", rgb[0], rgb[1], rgb[2]);
  return buffer;
}

// libjpeg reports through callbacks: a fatal error jumps back to readJpeg; a warning (corrupt or
// truncated data, which libjpeg would otherwise decode into grey blocks and only print) is made fatal
// too, so that a damaged photograph is an error and not a silently wrong image.  Outside the anonymous
// namespace: ImageRows::Jpeg holds one.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

namespace {

void jpegFail(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  info->err->format_message(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpegMessage(j_common_ptr info, int level) {
  if (level < 0) jpegFail(info);  // -1: a warning; >= 0: trace messages, ignored
}

// Pixels as libjpeg decodes them; plain data only, so that the longjmp skips no destructor.
struct JpegPixels {
  int width = 0, height = 0, channels = 0;
  unsigned char* data = nullptr;  // malloc'ed, freed by the caller
};

// Decodes a JPEG held in memory; false with errors.message set if libjpeg found any fault.
bool readJpeg(const unsigned char* bytes, std::size_t size, JpegPixels& out, JpegErrors& errors) {
  jpeg_decompress_struct info;
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpegFail;
  errors.manager.emit_message = jpegMessage;
  errors.message[0] = '\0';
  if (setjmp(errors.jump) != 0) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, bytes, static_cast<unsigned long>(size));
  jpeg_read_header(&info, TRUE);
  if (static_cast<double>(info.image_width) * info.image_height > kMaxImagePixels) {
    std::snprintf(errors.message, sizeof errors.message, "it declares %u x %u pixels, more than mmp reads (%.0f)",
                  info.image_width, info.image_height, kMaxImagePixels);
    jpeg_destroy_decompress(&info);
    return false;
  }
  info.out_color_space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
  jpeg_start_decompress(&info);
  out.width = static_cast<int>(info.output_width);
  out.height = static_cast<int>(info.output_height);
  out.channels = info.output_components;
  const std::size_t row = static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.channels);
  out.data = static_cast<unsigned char*>(std::malloc(row * static_cast<std::size_t>(out.height)));
  if (out.data == nullptr) {
    std::snprintf(errors.message, sizeof errors.message, "out of memory for %d x %d pixels", out.width, out.height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW line = out.data + row * info.output_scanline;
    jpeg_read_scanlines(&info, &line, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

std::string readBytes(const std::string& path, const char* what) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw DataError(std::string(what) + " '" + path + "' is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(std::string(what) + " '" + path + "' cannot be read: " + std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) throw DataError(std::string(what) + " '" + path + "': reading failed");
  if (bytes.empty()) throw DataError(std::string(what) + " '" + path + "' is empty");
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw DataError(std::string(what) + " '" + path + "' is larger than 2 GiB, more than mmp reads");
  }
  return bytes;
}

// The width and height a PNG or (classic) TIFF header declares; false if it cannot be read.
bool declaredSize(const std::string& bytes, double& width, double& height) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])); };
  if (bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0) {  // IHDR: big-endian width, height at 16 and 20
    if (bytes.size() < 24) return false;
    width = (byte(16) << 24) | (byte(17) << 16) | (byte(18) << 8) | byte(19);
    height = (byte(20) << 24) | (byte(21) << 16) | (byte(22) << 8) | byte(23);
    return true;
  }
  const bool little = bytes.compare(0, 4, std::string("II*\0", 4)) == 0;
  if (!little && bytes.compare(0, 4, std::string("MM\0*", 4)) != 0) return false;
  const auto u16 = [&](std::size_t i) { return little ? byte(i) | (byte(i + 1) << 8) : (byte(i) << 8) | byte(i + 1); };
  const auto u32 = [&](std::size_t i) { return little ? u16(i) | (u16(i + 2) << 16) : (u16(i) << 16) | u16(i + 2); };
  if (bytes.size() < 8) return false;
  const std::size_t ifd = u32(4);  // the first image's directory: 12-byte entries of tag, type, count, value
  if (ifd + 2 > bytes.size()) return false;
  width = height = -1;
  for (std::size_t k = 0, n = u16(ifd); k < n && ifd + 2 + 12 * (k + 1) <= bytes.size(); ++k) {
    const std::size_t entry = ifd + 2 + 12 * k;
    const std::uint32_t tag = u16(entry), type = u16(entry + 2);
    const double value = type == 3 ? u16(entry + 8) : type == 4 ? u32(entry + 8) : -1;
    if (tag == 256) width = value;
    if (tag == 257) height = value;
  }
  return width >= 0 && height >= 0;
}

void requireSize(double width, double height, const std::string& path, const char* what) {
  if (width * height > kMaxImagePixels) {
    std::ostringstream text;
    text << what << " '" << path << "' declares " << width << " x " << height << " pixels, more than mmp reads ("
         << kMaxImagePixels << "); a damaged header, or an image to cut into tiles";
    throw DataError(text.str());
  }
}

// Reads `count` scanlines into rows of `stride` bytes; false with errors.message set on a fault.
bool readScanlines(jpeg_decompress_struct* info, JpegErrors& errors, unsigned char* out, int count, std::size_t stride) {
  if (setjmp(errors.jump) != 0) return false;
  for (int i = 0; i < count; ++i) {
    JSAMPROW line = out + stride * static_cast<std::size_t>(i);
    if (jpeg_read_scanlines(info, &line, 1) != 1) {
      std::snprintf(errors.message, sizeof errors.message, "the data end early");
      return false;
    }
  }
  return true;
}

// Ends decoding after the last scanline (libjpeg reports damage it finds only there); false with
// errors.message set on a fault.
bool finishJpeg(jpeg_decompress_struct* info, JpegErrors& errors) {
  if (setjmp(errors.jump) != 0) return false;
  jpeg_finish_decompress(info);
  return true;
}

// Reads a JPEG file's header and starts decoding; false with errors.message set on a fault.
bool startJpeg(jpeg_decompress_struct* info, JpegErrors& errors, std::FILE* file) {
  info->err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpegFail;
  errors.manager.emit_message = jpegMessage;
  errors.message[0] = '\0';
  if (setjmp(errors.jump) != 0) return false;
  jpeg_create_decompress(info);
  jpeg_stdio_src(info, file);
  jpeg_read_header(info, TRUE);
  info->out_color_space = info->num_components == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
  jpeg_start_decompress(info);
  return true;
}

}  // namespace

struct ImageRows::Jpeg {
  jpeg_decompress_struct info;
  JpegErrors errors;
  std::FILE* file = nullptr;
};

ImageRows::ImageRows(const std::string& path, const FrameSettings& plain) : path_(path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  unsigned char magic[3] = {};
  const bool jpeg = file != nullptr && std::fread(magic, 1, 3, file) == 3 && magic[0] == 0xFF && magic[1] == 0xD8 &&
                    magic[2] == 0xFF;
  if (!jpeg) {
    if (file != nullptr) std::fclose(file);
    GeoImage image = loadGeoImage(path, plain);  // says what is wrong with the file, if anything
    whole_ = image.pixels;
    valid_ = image.valid;
    note_ = image.note;
    frame_ = std::move(image.frame);
    rows_ = whole_.rows;
    cols_ = whole_.cols;
    return;
  }
  std::rewind(file);
  jpeg_ = new Jpeg;
  jpeg_->file = file;
  if (!startJpeg(&jpeg_->info, jpeg_->errors, file)) {
    const std::string message = jpeg_->errors.message;
    close();
    throw DataError("image '" + path + "' is a damaged JPEG: " + message);
  }
  rows_ = static_cast<int>(jpeg_->info.output_height);
  cols_ = static_cast<int>(jpeg_->info.output_width);
  if (jpeg_->info.output_components == 1) note_ = kGreyNote;
  try {
    frame_ = readWorldFrame(path, rows_, cols_, plain);
  } catch (...) {
    close();
    throw;
  }
}

ImageRows::~ImageRows() { close(); }

void ImageRows::close() {
  if (jpeg_ == nullptr) return;
  jpeg_destroy_decompress(&jpeg_->info);
  std::fclose(jpeg_->file);
  delete jpeg_;
  jpeg_ = nullptr;
}

cv::Mat ImageRows::read(int count) {
  count = std::max(0, std::min(count, rows_ - next_));
  cv::Mat band;
  if (jpeg_ == nullptr) {
    band = whole_.rowRange(next_, next_ + count).clone();
  } else {
    const int channels = jpeg_->info.output_components;
    cv::Mat decoded(count, cols_, channels == 1 ? CV_8UC1 : CV_8UC3);
    if (!readScanlines(&jpeg_->info, jpeg_->errors, decoded.data, count, decoded.step[0]) ||
        (count > 0 && next_ + count == rows_ && !finishJpeg(&jpeg_->info, jpeg_->errors))) {
      throw DataError("image '" + path_ + "' is a damaged JPEG at row " +
                      std::to_string(jpeg_->info.output_scanline) + ": " + jpeg_->errors.message);
    }
    if (channels == 1) {
      cv::cvtColor(decoded, band, cv::COLOR_GRAY2BGR);
    } else {
      band = decoded;
    }
  }
  next_ += count;
  return band;
}

cv::Mat detail::readRaw(const std::string& path, const char* what) {
  const std::string bytes = readBytes(path, what);
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {  // JPEG
    JpegPixels pixels;
    JpegErrors errors;
    const bool ok = readJpeg(data, bytes.size(), pixels, errors);
    std::unique_ptr<unsigned char, decltype(&std::free)> owner(pixels.data, &std::free);
    if (!ok) throw DataError(std::string(what) + " '" + path + "' is a damaged JPEG: " + errors.message);
    return cv::Mat(pixels.height, pixels.width, pixels.channels == 1 ? CV_8UC1 : CV_8UC3, pixels.data).clone();
  }
  double width = 0, height = 0;
  if (!declaredSize(bytes, width, height)) {
    throw DataError(std::string(what) + " '" + path + "' is not a PNG, JPEG or TIFF image (or its header is damaged)");
  }
  requireSize(width, height, path, what);
  cv::Mat raw;
  try {
    raw = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8U, const_cast<unsigned char*>(data)),
                       cv::IMREAD_UNCHANGED);
  } catch (const cv::Exception& e) {
    throw DataError(std::string(what) + " '" + path + "' cannot be decoded: " + e.what());
  }
  if (raw.empty()) {
    throw DataError(std::string(what) + " '" + path +
                    "' cannot be decoded: damaged, or not a PNG, JPEG or TIFF image");
  }
  return raw;
}

bool detail::isTiff(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, sizeof magic);
  if (in.gcount() != 4) return false;
  const std::string m(magic, 4);
  return m == std::string("II*\0", 4) || m == std::string("MM\0*", 4) || m == std::string("II+\0", 4) ||
         m == std::string("MM\0+", 4);
}

cv::Mat detail::alphaValid(const cv::Mat& raw) {
  if (raw.channels() != 2 && raw.channels() != 4) return {};
  cv::Mat alpha, valid;
  cv::extractChannel(raw, alpha, raw.channels() - 1);
  cv::compare(alpha, 0, valid, cv::CMP_NE);
  if (cv::countNonZero(valid) == valid.rows * valid.cols) return {};
  return valid;
}

cv::Mat detail::bgr8(cv::Mat raw, const std::string& path, const cv::Mat& valid, int bits, std::string* note) {
  std::string said;
  if (raw.depth() == CV_16U) {
    double largest = 0.0;
    const int colours = raw.channels() == 2 || raw.channels() == 4 ? raw.channels() - 1 : raw.channels();
    for (int c = 0; c < colours && bits == 0; ++c) {
      cv::Mat channel;
      cv::extractChannel(raw, channel, c);
      double lo = 0.0, hi = 0.0;
      cv::minMaxLoc(channel, &lo, &hi, nullptr, nullptr, valid.empty() ? cv::noArray() : valid);
      largest = std::max(largest, hi);
    }
    const bool given = bits > 0;
    if (!given) {
      bits = 8;
      while (bits < 16 && largest > std::ldexp(1.0, bits) - 1.0) bits += 2;
    }
    bits = std::clamp(bits, 1, 16);
    const double top = std::ldexp(1.0, bits) - 1.0;
    raw.convertTo(raw, CV_8U, 255.0 / top);  // saturates samples above an NBITS the file declares
    said = "16-bit samples taken as " + std::to_string(bits) + "-bit data (" +
           (given ? std::string("the file's NBITS") : "the largest sample is " + numberText(largest)) +
           ") and scaled by 255 / " + numberText(top);
  } else if (raw.depth() != CV_8U) {
    // Float pixels have no known range (0..1? 0..255? reflectance?): refused, as GDAL's path does.
    throw DataError("image '" + path + "' holds " + (raw.depth() == CV_32F || raw.depth() == CV_64F ? "floating-point" : "signed") +
                    " values; mmp reads 8- or 16-bit imagery (scale it first, e.g. gdal_translate -ot Byte -scale)");
  }
  const auto add = [&said](const std::string& text) { said += (said.empty() ? "" : "; ") + text; };
  cv::Mat bgr;
  switch (raw.channels()) {
    case 1:
      cv::cvtColor(raw, bgr, cv::COLOR_GRAY2BGR);
      add(kGreyNote);
      break;
    case 2: {  // grey + alpha (PNG flags it; readGdalImage only passes a flagged one)
      cv::Mat grey;
      cv::extractChannel(raw, grey, 0);
      cv::cvtColor(grey, bgr, cv::COLOR_GRAY2BGR);
      add("grey and alpha: grey taken as red, green and blue, alpha 0 as no data");
      break;
    }
    case 3: bgr = raw; break;
    case 4:
      cv::cvtColor(raw, bgr, cv::COLOR_BGRA2BGR);
      add("alpha band: used as the mask of pixels without data (alpha 0), not as colour");
      break;
    default:
      throw DataError("image '" + path + "' has " + std::to_string(raw.channels()) +
                      " channels; expected 1 (grey), 3 (colour), or either with alpha");
  }
  if (note != nullptr) *note = said;
  return bgr;
}

cv::Mat loadImage(const std::string& path) {
  if (detail::isTiff(path)) return detail::readGdalImage(path, nullptr);  // one reader for every TIFF
  return detail::bgr8(detail::readRaw(path, "image"), path);
}

void validateClasses(const std::vector<LabelClass>& classes) {
  if (classes.empty()) throw InvalidArgument("label classes: the list is empty");
  std::set<std::string> names;
  std::set<int> indices;
  for (const LabelClass& c : classes) {
    if (c.name.empty()) throw InvalidArgument("label classes: a class has an empty name");
    if (c.index < 0 || c.index > 255) {
      throw InvalidArgument("label classes: class '" + c.name + "' has index " + std::to_string(c.index) +
                            "; indices must lie in [0, 255]");
    }
    if (!names.insert(c.name).second) throw InvalidArgument("label classes: the name '" + c.name + "' is used twice");
    if (!indices.insert(c.index).second) {
      throw InvalidArgument("label classes: index " + std::to_string(c.index) + " is used twice");
    }
  }
}

static std::string pixelName(const std::string& mask, int row, int col) {
  return mask + ": pixel (row " + std::to_string(row) + ", col " + std::to_string(col) + ")";
}

void checkIndexMask(const cv::Mat& mask, const std::vector<LabelClass>& classes, const std::string& name) {
  if (mask.type() != CV_8UC1) throw DataError(name + ": expected one 8-bit channel of class indices");
  std::array<bool, 256> valid{};
  std::string listed;
  for (const LabelClass& c : classes) {
    valid[static_cast<std::size_t>(c.index)] = true;
    listed += (listed.empty() ? "" : ", ") + std::to_string(c.index);
  }
  for (int r = 0; r < mask.rows; ++r) {
    const std::uint8_t* in = mask.ptr<std::uint8_t>(r);
    for (int c = 0; c < mask.cols; ++c) {
      if (!valid[in[c]]) {
        throw DataError(pixelName(name, r, c) + " holds index " + std::to_string(in[c]) +
                        ", which is not a declared class (declared indices: " + listed + ")");
      }
    }
  }
}

cv::Mat loadLabelMask(const std::string& path, const std::vector<LabelClass>& classes) {
  validateClasses(classes);
  const cv::Mat raw = detail::readRaw(path, "label mask");
  if (raw.depth() != CV_8U) throw DataError("label mask '" + path + "': expected 8 bits per channel");
  cv::Mat mask(raw.rows, raw.cols, CV_8UC1);
  if (raw.channels() == 1) {
    checkIndexMask(raw, classes, "label mask '" + path + "'");
    raw.copyTo(mask);
    return mask;
  }
  if (raw.channels() != 3 && raw.channels() != 4) {
    throw DataError("label mask '" + path + "' has " + std::to_string(raw.channels()) +
                    " channels; expected 1 (class indices) or 3 (class colours)");
  }
  // Colour masks: a 24-bit key per declared colour.  256 entries is too few for a direct table, so
  // the lookup goes through the last colour seen (masks are piecewise constant) and a small list.
  std::vector<std::pair<std::uint32_t, std::uint8_t>> table;
  std::string listed;
  for (const LabelClass& c : classes) {
    if (!c.rgb) {
      throw DataError("label mask '" + path + "' is colour-coded but class '" + c.name +
                      "' declares no colour; give every class a colour (#RRGGBB) or use an index mask");
    }
    const auto& rgb = *c.rgb;
    table.push_back({(std::uint32_t{rgb[0]} << 16) | (std::uint32_t{rgb[1]} << 8) | rgb[2],
                     static_cast<std::uint8_t>(c.index)});
    listed += (listed.empty() ? "" : ", ") + c.name + " " + hexColour(rgb);
  }
  const int step = raw.channels();
  std::uint32_t last_key = 0xFFFFFFFFu;
  std::uint8_t last_index = 0;
  for (int r = 0; r < raw.rows; ++r) {
    const std::uint8_t* in = raw.ptr<std::uint8_t>(r);
    std::uint8_t* out = mask.ptr<std::uint8_t>(r);
    for (int c = 0; c < raw.cols; ++c) {
      const std::uint8_t* px = in + static_cast<std::ptrdiff_t>(c) * step;  // B, G, R
      const std::uint32_t key = (std::uint32_t{px[2]} << 16) | (std::uint32_t{px[1]} << 8) | px[0];
      if (key != last_key) {
        bool found = false;
        for (const auto& [k, index] : table) {
          if (k == key) {
            last_index = index;
            found = true;
            break;
          }
        }
        if (!found) {
          throw DataError(pixelName("label mask '" + path + "'", r, c) + " has colour " + hexColour({px[2], px[1], px[0]}) +
                          ", which is no declared class colour (declared: " + listed + ")");
        }
        last_key = key;
      }
      out[c] = last_index;
    }
  }
  return mask;
}

std::vector<std::uint8_t> cellLabels(const cv::Mat& mask, int cell_size) {
  if (mask.type() != CV_8UC1) throw InvalidArgument("cell labels: the mask must be one 8-bit channel");
  if (cell_size < 1) throw InvalidArgument("cell labels: cell_size must be >= 1, got " + std::to_string(cell_size));
  const int rows = mask.rows / cell_size, cols = mask.cols / cell_size;
  if (rows < 1 || cols < 1) {
    throw InvalidArgument("cell labels: a " + std::to_string(mask.cols) + " x " + std::to_string(mask.rows) +
                          " mask holds no whole cell of " + std::to_string(cell_size) + " pixels");
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows) * cols);
  std::array<int, 256> counts{};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      counts.fill(0);
      for (int y = r * cell_size; y < (r + 1) * cell_size; ++y) {
        const std::uint8_t* in = mask.ptr<std::uint8_t>(y);
        for (int x = c * cell_size; x < (c + 1) * cell_size; ++x) ++counts[in[x]];
      }
      int best = 0;
      for (int v = 1; v < 256; ++v) {
        if (counts[static_cast<std::size_t>(v)] > counts[static_cast<std::size_t>(best)]) best = v;
      }
      out[static_cast<std::size_t>(r) * cols + c] = static_cast<std::uint8_t>(best);
    }
  }
  return out;
}

}  // namespace mmp
