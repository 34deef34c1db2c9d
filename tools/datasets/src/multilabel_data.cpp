#include <mmp/datasets/multilabel_data.hpp>

#include <mmp/datasets/gzip_file.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <functional>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace mmp::datasets {
namespace {

using RowMajorXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using LabelMatrix = MultilabelTable::LabelMatrix;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

/// A field as messages show it: quoted, and cut short if long.
std::string quoted(std::string_view field) {
  constexpr std::size_t kShown = 40;
  if (field.size() > kShown) return "'" + std::string(field.substr(0, kShown)) + "...'";
  return "'" + std::string(field) + "'";
}

std::optional<int> toInt(std::string_view field) {
  int value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc() || end != field.data() + field.size()) return std::nullopt;
  return value;
}

/// The number the whole field spells, if it is finite ("nan", "inf" and overflow are refused).
std::optional<double> toFiniteNumber(std::string_view field) {
  if (field.size() > 1 && field[0] == '+' && field[1] != '-') field.remove_prefix(1);  // from_chars refuses '+'
  double value = 0.0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc() || end != field.data() + field.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

/// Calls f on each piece of `text` between separators (an empty text has one empty piece).
template <class F>
void forEachPiece(std::string_view text, char separator, F&& f) {
  for (;;) {
    const std::size_t at = text.find(separator);
    f(text.substr(0, at));
    if (at == std::string_view::npos) return;
    text.remove_prefix(at + 1);
  }
}

/// Calls f on each blank-separated token of `text`.
template <class F>
void forEachToken(std::string_view text, F&& f) {
  for (;;) {
    while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
    if (text.empty()) return;
    std::size_t end = 0;
    while (end < text.size() && !isBlank(text[end])) ++end;
    f(text.substr(0, end));
    text.remove_prefix(end);
  }
}

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

// ---- LIBSVM multilabel ----------------------------------------------------------------------------

// Label numbers a LIBSVM line may give (far above any multilabel benchmark's label count): each
// label gets a column and a name, so a stray huge number must not become millions of them.
constexpr int kMostLabels = 65536;

namespace {

// A LIBSVM multilabel file's examples as compressed sparse rows, until the dimensions are known.
struct SparseRows {
  std::vector<std::size_t> feature_starts{0}, label_starts{0};
  std::vector<int> indices, labels;
  std::vector<double> values;
  std::vector<std::size_t> lines;
  int largest_index = 0, largest_label = -1;
};

using LineFault = std::function<void(const std::string& what)>;  // throws, naming the file and line

// A line's labels: its first field, a comma-separated list of distinct 0-based labels (`declared` > 0:
// below it).
void readLabelField(std::string_view field, int declared, SparseRows& rows, const LineFault& wrong) {
  const std::size_t first = rows.labels.size();
  forEachPiece(field, ',', [&](std::string_view item) {
    const std::optional<int> label = toInt(item);
    if (!label || *label < 0) {
      wrong("label " + quoted(item) + " is not an integer >= 0; expected a comma-separated list of 0-based "
            "labels (a line without labels starts with a space or a tab)");
    }
    if (*label >= kMostLabels) {
      wrong("label " + std::to_string(*label) + " is above the " + std::to_string(kMostLabels - 1) +
            " that a table may hold; expected 0-based label numbers");
    }
    if (declared > 0 && *label >= declared) {
      wrong("label " + std::to_string(*label) + " is out of range, expected 0.." + std::to_string(declared - 1) + " (" +
            std::to_string(declared) + " labels declared)");
    }
    if (std::find(rows.labels.begin() + static_cast<std::ptrdiff_t>(first), rows.labels.end(), *label) != rows.labels.end()) {
      wrong("label " + std::to_string(*label) + " is listed twice, expected each label once");
    }
    rows.labels.push_back(*label);
    rows.largest_label = std::max(rows.largest_label, *label);
  });
}

// A line's features: index:value pairs with 1-based, strictly increasing indices (`declared` > 0: up to it).
void readFeatureFields(std::string_view rest, int declared, SparseRows& rows, const LineFault& wrong) {
  int previous = 0;
  forEachToken(rest, [&](std::string_view token) {
    const std::size_t colon = token.find(':');
    if (colon == std::string_view::npos) wrong("found " + quoted(token) + ", expected a feature index:value");
    const std::string_view index_text = token.substr(0, colon), value_text = token.substr(colon + 1);
    const std::optional<int> index = toInt(index_text);
    if (!index) wrong("feature index " + quoted(index_text) + " is not an integer, expected index:value");
    if (*index < 1) wrong("feature index " + std::to_string(*index) + ", expected indices from 1 (LIBSVM features are 1-based)");
    if (*index <= previous) {
      wrong("feature index " + std::to_string(*index) + " follows index " + std::to_string(previous) +
            ", expected strictly increasing indices");
    }
    if (declared > 0 && *index > declared) {
      wrong("feature index " + std::to_string(*index) + " is above the declared dimension " + std::to_string(declared) +
            ", expected 1.." + std::to_string(declared));
    }
    const std::optional<double> value = toFiniteNumber(value_text);
    if (!value) wrong("feature " + std::to_string(*index) + " is " + quoted(value_text) + ", expected a finite number");
    previous = *index;
    rows.indices.push_back(*index - 1);
    rows.values.push_back(*value);
  });
  rows.largest_index = std::max(rows.largest_index, previous);
}

// The rows as a dense table of `features` x `labels` columns (0: as large as the data needs).
MultilabelTable denseTable(SparseRows rows, const std::string& source_name, int features, int labels) {
  MultilabelTable data;
  data.source = source_name;
  data.features = features > 0 ? features : rows.largest_index;
  data.labels = labels > 0 ? labels : rows.largest_label + 1;
  const auto n = static_cast<Eigen::Index>(rows.lines.size());
  // The table is dense: refuse one that could not be held rather than ask for the memory.
  constexpr double kMostCells = 67108864.0;  // 2^26 values: 512 MiB of doubles
  if (static_cast<double>(n) * data.features > kMostCells || static_cast<double>(n) * data.labels > kMostCells) {
    throw DataError(source_name + ": " + std::to_string(n) + " rows with feature indices up to " + std::to_string(data.features) +
                    " and labels up to " + std::to_string(data.labels - 1) +
                    " would make a dense table of more than 2^26 values; a mistyped index? (declare the features and "
                    "labels to have such a line named)");
  }
  data.x = Eigen::MatrixXd::Zero(n, data.features);
  data.y = LabelMatrix::Zero(n, data.labels);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto row = static_cast<std::size_t>(i);
    for (std::size_t k = rows.feature_starts[row]; k < rows.feature_starts[row + 1]; ++k) data.x(i, rows.indices[k]) = rows.values[k];
    for (std::size_t k = rows.label_starts[row]; k < rows.label_starts[row + 1]; ++k) data.y(i, rows.labels[k]) = 1;
  }
  for (int l = 0; l < data.labels; ++l) data.label_names.push_back(std::to_string(l));
  data.lines = std::move(rows.lines);
  return data;
}

}  // namespace

MultilabelTable parseLibsvmMultilabel(std::istream& in, const std::string& source_name, int features, int labels) {
  if (features < 0 || labels < 0) {
    throw InvalidArgument("parseLibsvmMultilabel: features " + std::to_string(features) + " and labels " +
                          std::to_string(labels) + ", expected >= 0 (0: infer from the data)");
  }
  SparseRows rows;
  std::string text;
  std::size_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    const LineFault wrong = [&](const std::string& what) { failAtLine(source_name, line, what); };
    std::string_view rest(text);
    if (trim(rest).empty()) continue;
    if (!isBlank(rest.front())) {  // the labels, unless the line starts with a blank (no label)
      std::size_t end = 0;
      while (end < rest.size() && !isBlank(rest[end])) ++end;
      readLabelField(rest.substr(0, end), labels, rows, wrong);
      rest.remove_prefix(end);
    }
    readFeatureFields(rest, features, rows, wrong);
    rows.feature_starts.push_back(rows.indices.size());
    rows.label_starts.push_back(rows.labels.size());
    rows.lines.push_back(line);
  }
  if (rows.lines.empty()) throw DataError(source_name + ": no examples found (empty file?)");
  return denseTable(std::move(rows), source_name, features, labels);
}

MultilabelTable readLibsvmMultilabel(const std::string& path, int features, int labels) {
  std::istringstream text(readMaybeGzip(path));
  return parseLibsvmMultilabel(text, path, features, labels);
}

// ---- MULAN XML label file -------------------------------------------------------------------------

namespace {

/// The five predefined XML entities decoded; any other '&' is kept as it is.
std::string decodeEntities(std::string_view text) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool decoded = false;
    for (const auto& [entity, c] : kEntities) {
      if (text.substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size();
        decoded = true;
        break;
      }
    }
    if (!decoded) out += text[i++];
  }
  return out;
}

}  // namespace

MulanLabels parseMulanLabels(std::string_view xml, const std::string& source_name) {
  MulanLabels out;
  out.source = source_name;
  // line numbers, counted forward as the scan advances
  std::size_t counted_to = 0, counted_line = 1;
  const auto lineAt = [&](std::size_t pos) {
    if (pos < counted_to) counted_to = 0, counted_line = 1;
    counted_line += static_cast<std::size_t>(std::count(xml.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                                        xml.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
    counted_to = pos;
    return counted_line;
  };
  const auto startsAt = [&](std::size_t pos, std::string_view prefix) {
    return xml.substr(pos, prefix.size()) == prefix;
  };
  std::unordered_map<std::string, std::size_t> first_line;
  std::size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string_view::npos) {
    const auto skipPast = [&](std::string_view end, const std::string& what) {
      const std::size_t stop = xml.find(end, pos);
      if (stop == std::string_view::npos) {
        failAtLine(source_name, lineAt(pos), what + " does not end, expected '" + std::string(end) + "'");
      }
      pos = stop + end.size();
    };
    if (startsAt(pos, "<!--")) {
      skipPast("-->", "a comment");
    } else if (startsAt(pos, "<![CDATA[")) {
      skipPast("]]>", "a CDATA section");
    } else if (startsAt(pos, "<?")) {
      skipPast("?>", "a processing instruction");
    } else if (startsAt(pos, "<!") || startsAt(pos, "</")) {
      skipPast(">", startsAt(pos, "<!") ? "a declaration" : "an end tag");
    } else {
      // a start tag: <name attribute="value" ...> or .../>
      const std::size_t tag = pos;
      std::size_t p = pos + 1;
      while (p < xml.size() && !isBlank(xml[p]) && xml[p] != '/' && xml[p] != '>') ++p;
      const std::string_view name = xml.substr(tag + 1, p - tag - 1);
      const std::size_t colon = name.rfind(':');
      const bool is_label = (colon == std::string_view::npos ? name : name.substr(colon + 1)) == "label";
      std::optional<std::string> label_name;
      const auto unended = [&] {
        failAtLine(source_name, lineAt(tag), "element <" + std::string(name) + "> does not end, expected '>'");
      };
      for (;;) {
        while (p < xml.size() && isBlank(xml[p])) ++p;
        if (p >= xml.size()) unended();
        if (xml[p] == '>' || startsAt(p, "/>")) break;
        const std::size_t attribute = p;
        while (p < xml.size() && !isBlank(xml[p]) && xml[p] != '=' && xml[p] != '>' && xml[p] != '/') ++p;
        const std::string_view key = xml.substr(attribute, p - attribute);
        while (p < xml.size() && isBlank(xml[p])) ++p;
        if (p + 1 >= xml.size() || xml[p] != '=') {
          failAtLine(source_name, lineAt(tag), "attribute " + quoted(key) + " of <" + std::string(name) +
                                             "> has no value, expected " + std::string(key) + "=\"...\"");
        }
        ++p;
        while (p < xml.size() && isBlank(xml[p])) ++p;
        const char quote = p < xml.size() ? xml[p] : '\0';
        const std::size_t close = quote == '"' || quote == '\'' ? xml.find(quote, p + 1) : std::string_view::npos;
        if (close == std::string_view::npos) {
          failAtLine(source_name, lineAt(tag), "attribute " + quoted(key) + " of <" + std::string(name) +
                                             "> has no quoted value, expected " + std::string(key) + "=\"...\"");
        }
        if (is_label && key == "name") label_name = decodeEntities(xml.substr(p + 1, close - p - 1));
        p = close + 1;
      }
      pos = p;
      if (!is_label) continue;
      const std::size_t line = lineAt(tag);
      if (!label_name || label_name->empty()) {
        failAtLine(source_name, line, "a <" + std::string(name) + "> element without a name, expected <label name=\"...\">");
      }
      const auto [first, inserted] = first_line.emplace(*label_name, line);
      if (!inserted) {
        failAtLine(source_name, line, "label '" + *label_name + "' is named a second time (first on line " +
                                    std::to_string(first->second) + "), expected each label once");
      }
      out.names.push_back(*label_name);
      out.lines.push_back(line);
    }
  }
  if (out.names.empty()) {
    throw DataError(source_name + ": no <label name=\"...\"> element, expected at least one label");
  }
  return out;
}

// ---- MULAN ARFF -----------------------------------------------------------------------------------

namespace {

// What a MULAN ARFF file has declared and read so far (parseMulanArff).
struct ArffState {
  struct Attribute {
    std::string name;
    bool is_label = false;
    int column = 0;  ///< the column of x, or of y for a label
  };
  const MulanLabels& labels;
  std::string xml_name;
  std::unordered_map<std::string, std::size_t> label_index;  // XML label name -> its place in `labels`
  MultilabelTable data;
  std::vector<Attribute> attributes;
  std::unordered_map<std::string, std::size_t> attribute_line;
  std::vector<double> x;        // row-major, features per row
  std::vector<std::uint8_t> y;  // row-major, labels per row
  bool in_data = false;
};

// The name of "@attribute NAME TYPE" (quoted if it holds blanks), taken off the front of `rest`.
std::string attributeName(std::string_view& rest, const LineFault& wrong) {
  if (!rest.empty() && (rest.front() == '\'' || rest.front() == '"')) {
    const std::size_t close = rest.find(rest.front(), 1);
    if (close == std::string_view::npos) wrong("the attribute name " + quoted(rest) + " has no closing quote");
    std::string name(rest.substr(1, close - 1));
    rest = trim(rest.substr(close + 1));
    return name;
  }
  std::size_t end = 0;
  while (end < rest.size() && !isBlank(rest[end])) ++end;
  std::string name(rest.substr(0, end));
  rest = trim(rest.substr(end));
  return name;
}

// "@attribute NAME TYPE" (rest: after the keyword): a label {0,1} if the XML names it, else numeric.
void readAttribute(std::string_view row, std::string_view rest, std::size_t line, ArffState& st, const LineFault& wrong) {
  const std::string name = attributeName(rest, wrong);
  if (name.empty() || rest.empty()) wrong("found " + quoted(row) + ", expected @attribute NAME TYPE");
  if (const auto [first, inserted] = st.attribute_line.emplace(name, line); !inserted) {
    wrong("attribute '" + name + "' is declared a second time (first on line " + std::to_string(first->second) +
          "), expected each name once");
  }
  ArffState::Attribute attribute{name, st.label_index.count(name) > 0, 0};
  if (attribute.is_label) {
    std::string type(rest);
    type.erase(std::remove_if(type.begin(), type.end(), [](char c) { return isBlank(c); }), type.end());
    if (type != "{0,1}") {
      wrong("attribute '" + name + "' is a label (named in " + st.xml_name + ") of type " + quoted(rest) + ", expected {0,1}");
    }
    attribute.column = st.data.labels++;
    st.data.label_names.push_back(name);
  } else {
    const std::string type = lowered(rest);
    if (type != "numeric" && type != "real" && type != "integer") {
      wrong("attribute '" + name + "' is of type " + quoted(rest) + ", expected numeric, real or integer (only the labels named in " +
            st.xml_name + " may be nominal)");
    }
    attribute.column = st.data.features++;
  }
  st.attributes.push_back(std::move(attribute));
}

// A header line: @relation, @attribute NAME TYPE, or @data (after which every label must be declared).
void readHeaderLine(std::string_view row, std::size_t line, const std::string& source_name, ArffState& st, const LineFault& wrong) {
  std::size_t end = 0;
  while (end < row.size() && !isBlank(row[end])) ++end;
  const std::string keyword = lowered(row.substr(0, end));
  if (keyword == "@relation") return;
  if (keyword == "@data") {
    if (st.attributes.empty()) wrong("@data before any @attribute, expected the attributes first");
    for (std::size_t k = 0; k < st.labels.names.size(); ++k) {
      if (st.attribute_line.count(st.labels.names[k]) == 0) {
        failAtLine(st.xml_name, st.labels.lines[k], "label '" + st.labels.names[k] + "' is not an attribute of " + source_name +
                                                        ", expected '@attribute " + st.labels.names[k] + " {0,1}' there");
      }
    }
    st.in_data = true;
    return;
  }
  if (keyword != "@attribute") {
    wrong("found " + quoted(row) + (row.front() == '@' ? "" : " before @data") + ", expected @relation, @attribute or @data");
  }
  readAttribute(row, trim(row.substr(end)), line, st, wrong);
}

// A data row, dense "v_1,...,v_m" or sparse "{index value, ...}" (left-out values are 0).
void readDataRow(std::string_view row, ArffState& st, const LineFault& wrong) {
  const std::size_t x_start = st.x.size(), y_start = st.y.size();
  st.x.resize(x_start + static_cast<std::size_t>(st.data.features), 0.0);
  st.y.resize(y_start + static_cast<std::size_t>(st.data.labels), 0);
  const auto store = [&](std::size_t a, std::string_view value) {
    const ArffState::Attribute& attribute = st.attributes[a];
    const std::string where =
        "value " + std::to_string(a + 1) + " (" + (attribute.is_label ? "label" : "attribute") + " '" + attribute.name + "')";
    const char* expected = attribute.is_label ? "0 or 1" : "a finite number";
    if (value == "?") wrong(where + " is missing ('?'), expected " + expected);
    if (attribute.is_label) {
      if (value != "0" && value != "1") wrong(where + " is " + quoted(value) + ", expected " + expected);
      st.y[y_start + static_cast<std::size_t>(attribute.column)] = static_cast<std::uint8_t>(value[0] - '0');
    } else {
      const std::optional<double> number = toFiniteNumber(value);
      if (!number) wrong(where + " is " + quoted(value) + ", expected " + expected);
      st.x[x_start + static_cast<std::size_t>(attribute.column)] = *number;
    }
  };
  const std::string shape = std::to_string(st.attributes.size()) + " (" + std::to_string(st.data.features) + " features and " +
                            std::to_string(st.data.labels) + " labels)";
  if (row.front() != '{') {
    std::size_t count = 0;
    forEachPiece(row, ',', [&](std::string_view) { ++count; });
    if (count != st.attributes.size()) wrong("found " + std::to_string(count) + " comma-separated values, expected " + shape);
    std::size_t a = 0;
    forEachPiece(row, ',', [&](std::string_view value) { store(a++, trim(value)); });
    return;
  }
  if (row.back() != '}') wrong("a sparse row that does not end with '}', expected {index value, ...}");
  const std::string_view inside = trim(row.substr(1, row.size() - 2));
  long previous = -1;
  if (inside.empty()) return;
  forEachPiece(inside, ',', [&](std::string_view entry) {
    entry = trim(entry);
    std::size_t blank = 0;
    while (blank < entry.size() && !isBlank(entry[blank])) ++blank;
    const std::optional<int> index = toInt(entry.substr(0, blank));
    if (!index || blank == entry.size()) wrong("sparse entry " + quoted(entry) + ", expected 'index value'");
    if (*index < 0 || static_cast<std::size_t>(*index) >= st.attributes.size()) {
      wrong("sparse index " + std::to_string(*index) + ", expected 0.." + std::to_string(st.attributes.size() - 1) + " (0-based, " +
            shape + ")");
    }
    if (*index <= previous) {
      wrong("sparse index " + std::to_string(*index) + " follows index " + std::to_string(previous) +
            ", expected strictly increasing indices");
    }
    previous = *index;
    store(static_cast<std::size_t>(*index), trim(entry.substr(blank)));
  });
}

}  // namespace

MultilabelTable parseMulanArff(std::istream& arff, const std::string& source_name, const MulanLabels& labels) {
  ArffState st{labels, labels.source.empty() ? std::string("the label file") : labels.source, {}, {}, {}, {}, {}, {}, false};
  for (std::size_t k = 0; k < labels.names.size(); ++k) st.label_index.emplace(labels.names[k], k);
  st.data.source = source_name;
  std::string text;
  std::size_t line = 0;
  while (std::getline(arff, text)) {
    ++line;
    const LineFault wrong = [&](const std::string& what) { failAtLine(source_name, line, what); };
    const std::string_view row = trim(text);
    if (row.empty() || row.front() == '%') continue;
    if (!st.in_data) {
      readHeaderLine(row, line, source_name, st, wrong);
      continue;
    }
    readDataRow(row, st, wrong);
    st.data.lines.push_back(line);
  }
  if (!st.in_data) throw DataError(source_name + ": no @data section, expected @data after the attributes");
  if (st.data.lines.empty()) throw DataError(source_name + ": no rows after @data, expected at least one example");
  const auto n = static_cast<Eigen::Index>(st.data.lines.size());
  st.data.x = Eigen::Map<const RowMajorXd>(st.x.data(), n, st.data.features);
  st.data.y = Eigen::Map<const LabelMatrix>(st.y.data(), n, st.data.labels);
  return std::move(st.data);
}

MultilabelTable readMulanArff(const std::string& arff_path, const std::string& xml_path) {
  const MulanLabels labels = parseMulanLabels(readMaybeGzip(xml_path), xml_path);
  std::istringstream text(readMaybeGzip(arff_path));
  return parseMulanArff(text, arff_path, labels);
}

std::pair<MultilabelTable, MultilabelTable> readStandardSplit(const std::string& root, const std::string& set) {
  if (set == "yeast") {
    return {readLibsvmMultilabel(root + "/multilabel/yeast/yeast_train.svm", 103, 14),
            readLibsvmMultilabel(root + "/multilabel/yeast/yeast_test.svm", 103, 14)};
  }
  if (set == "scene") {
    return {readMulanArff(root + "/multilabel/scene/scene-train.arff", root + "/multilabel/scene/scene.xml"),
            readMulanArff(root + "/multilabel/scene/scene-test.arff", root + "/multilabel/scene/scene.xml")};
  }
  throw InvalidArgument("multilabel set '" + set + "': expected yeast or scene");
}

}  // namespace mmp::datasets
