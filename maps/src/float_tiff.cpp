#include <mmp/maps/float_tiff.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/georeference.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>


namespace mmp {
namespace {

// TIFF field types and tags used here.
constexpr std::uint16_t kShort = 3, kLong = 4, kLong8 = 16;

// Little-endian bytes ("II"), appended to a buffer.
struct Bytes {
  std::string data;
  void put(std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i) data.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  }
};

}  // namespace

FloatTiffWriter::FloatTiffWriter(const std::string& path, long long rows, long long cols, bool big_tiff)
    : file_(path), rows_(rows), cols_(cols) {
  if (rows < 1 || cols < 1 || cols > 0xFFFFFFFFLL || rows > 0xFFFFFFFFLL) {
    throw InvalidArgument("float TIFF '" + path + "': " + std::to_string(cols) + " x " + std::to_string(rows) +
                          " cells; each side must be 1 to 2^32 - 1");
  }
  const double pixel_bytes = 4.0 * static_cast<double>(rows) * static_cast<double>(cols);
  big_ = big_tiff || pixel_bytes + 64.0 * 1024 * 1024 >= 4294967296.0;  // room for the strip tables and the directory
  Bytes header;
  header.data = "II";
  if (big_) {
    header.put(43, 2);
    header.put(8, 2);
    header.put(0, 2);
    header.put(16 + static_cast<std::uint64_t>(pixel_bytes), 8);  // the directory follows the pixels
  } else {
    header.put(42, 2);
    header.put(8 + static_cast<std::uint64_t>(pixel_bytes), 4);
  }
  file_.write(header.data.data(), header.data.size());
}

void FloatTiffWriter::write(const float* values, long long count) {
  if (count < 1 || written_ + count > rows_) {
    throw InvalidArgument("float TIFF: " + std::to_string(count) + " more rows after " + std::to_string(written_) +
                          " of " + std::to_string(rows_));
  }
  file_.write(values, static_cast<std::size_t>(count * cols_) * sizeof(float));
  written_ += count;
  strip_rows_.push_back(static_cast<std::uint64_t>(count));
}

void FloatTiffWriter::finish() {
  if (written_ != rows_) {
    throw InvalidArgument("float TIFF: " + std::to_string(written_) + " of " + std::to_string(rows_) + " rows written");
  }
  // The directory follows the pixels (where the header points), then the strip tables.  RowsPerStrip
  // is one number: every strip but the last must have the first strip's rows.
  for (std::size_t i = 0; i + 1 < strip_rows_.size(); ++i) {
    if (strip_rows_[i] != strip_rows_.front()) {
      throw InvalidArgument("float TIFF: bands of different heights; write equal bands (the last may be shorter)");
    }
  }
  const std::uint64_t strips = strip_rows_.size(), row_bytes = 4 * static_cast<std::uint64_t>(cols_);
  const int word = big_ ? 8 : 4;  // offsets, counts and a directory entry's value field
  const std::uint16_t word_type = big_ ? kLong8 : kLong;
  const std::uint64_t start = big_ ? 16 : 8;  // where the pixels begin
  const std::uint64_t directory = start + row_bytes * static_cast<std::uint64_t>(rows_);
  constexpr int kEntries = 11;
  const std::uint64_t directory_size = big_ ? 8 + kEntries * 20 + 8 : 2 + kEntries * 12 + 4;
  const std::uint64_t offsets_at = directory + directory_size, counts_at = offsets_at + strips * word;
  const bool inline_tables = strips == 1;  // one value fits in the entry itself
  Bytes out;
  out.put(kEntries, big_ ? 8 : 2);
  auto entry = [&](std::uint16_t tag, std::uint16_t type, std::uint64_t count, std::uint64_t value) {
    out.put(tag, 2);
    out.put(type, 2);
    out.put(count, word);
    out.put(value, word);  // little-endian: a SHORT value sits in the field's first bytes, as TIFF wants
  };
  entry(256, kLong, 1, static_cast<std::uint64_t>(cols_));          // ImageWidth
  entry(257, kLong, 1, static_cast<std::uint64_t>(rows_));          // ImageLength
  entry(258, kShort, 1, 32);                                        // BitsPerSample
  entry(259, kShort, 1, 1);                                         // Compression: none
  entry(262, kShort, 1, 1);                                         // Photometric: BlackIsZero
  entry(273, word_type, strips, inline_tables ? start : offsets_at);  // StripOffsets
  entry(277, kShort, 1, 1);                                         // SamplesPerPixel
  entry(278, kLong, 1, strip_rows_.front());                        // RowsPerStrip
  entry(279, word_type, strips, inline_tables ? strip_rows_.front() * row_bytes : counts_at);  // StripByteCounts
  entry(284, kShort, 1, 1);                                         // PlanarConfiguration: contiguous
  entry(339, kShort, 1, 3);                                         // SampleFormat: IEEE float
  out.put(0, word);                                                 // no further directory
  if (!inline_tables) {
    std::uint64_t offset = start;
    for (std::uint64_t r : strip_rows_) out.put(offset, word), offset += r * row_bytes;
    for (std::uint64_t r : strip_rows_) out.put(r * row_bytes, word);
  }
  file_.write(out.data.data(), out.data.size());
  if (frame_.rows == 0) frame_ = WorldFrame::unlocated(static_cast<int>(rows_), static_cast<int>(cols_));
  file_.commit([&](const std::string& written) {
    std::error_code ignored;
    if (!std::filesystem::is_regular_file(written, ignored)) return;
    writeGeoreference(written, frame_);
    // GDAL rewrote the directory after AtomicFile's sync: sync again before the rename.
    const int fd = ::open(written.c_str(), O_RDONLY);
    const bool synced = fd >= 0 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!synced) throw Error("syncing the georeferenced file '" + written + "' failed; the target is untouched");
  });
}

}  // namespace mmp
