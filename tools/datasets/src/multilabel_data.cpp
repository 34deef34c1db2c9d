#include <mmp/datasets/multilabel_data.hpp>

#include <mmp/datasets/gzip_file.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
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

MultilabelTable parseLibsvmMultilabel(std::istream& in, const std::string& source_name, int features, int labels) {
  if (features < 0 || labels < 0) {
    throw InvalidArgument("parseLibsvmMultilabel: features " + std::to_string(features) + " and labels " +
                          std::to_string(labels) + ", expected >= 0 (0: infer from the data)");
  }
  // The examples as compressed sparse rows until the dimensions are known.
  std::vector<std::size_t> feature_starts{0}, label_starts{0};
  std::vector<int> indices, label_list;
  std::vector<double> values;
  std::vector<std::size_t> lines;
  int largest_index = 0, largest_label = -1;
  std::string text;
  std::size_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    const auto wrong = [&](const std::string& what) { failAtLine(source_name, line, what); };
    std::string_view rest(text);
    if (trim(rest).empty()) continue;
    // 1) the labels: the first field, unless the line starts with a blank (no label)
    if (!isBlank(rest.front())) {
      std::size_t end = 0;
      while (end < rest.size() && !isBlank(rest[end])) ++end;
      const std::size_t first = label_list.size();
      forEachPiece(rest.substr(0, end), ',', [&](std::string_view item) {
        const std::optional<int> label = toInt(item);
        if (!label || *label < 0) {
          wrong("label " + quoted(item) + " is not an integer >= 0; expected a comma-separated list of 0-based "
                "labels (a line without labels starts with a space or a tab)");
        }
        if (*label >= kMostLabels) {
          wrong("label " + std::to_string(*label) + " is above the " + std::to_string(kMostLabels - 1) +
                " that a table may hold; expected 0-based label numbers");
        }
        if (labels > 0 && *label >= labels) {
          wrong("label " + std::to_string(*label) + " is out of range, expected 0.." + std::to_string(labels - 1) +
                " (" + std::to_string(labels) + " labels declared)");
        }
        if (std::find(label_list.begin() + static_cast<std::ptrdiff_t>(first), label_list.end(), *label) !=
            label_list.end()) {
          wrong("label " + std::to_string(*label) + " is listed twice, expected each label once");
        }
        label_list.push_back(*label);
        largest_label = std::max(largest_label, *label);
      });
      rest.remove_prefix(end);
    }
    // 2) the features: idx:value with 1-based, strictly increasing indices
    int previous = 0;
    forEachToken(rest, [&](std::string_view token) {
      const std::size_t colon = token.find(':');
      if (colon == std::string_view::npos) wrong("found " + quoted(token) + ", expected a feature index:value");
      const std::string_view index_text = token.substr(0, colon), value_text = token.substr(colon + 1);
      const std::optional<int> index = toInt(index_text);
      if (!index) wrong("feature index " + quoted(index_text) + " is not an integer, expected index:value");
      if (*index < 1) {
        wrong("feature index " + std::to_string(*index) + ", expected indices from 1 (LIBSVM features are 1-based)");
      }
      if (*index <= previous) {
        wrong("feature index " + std::to_string(*index) + " follows index " + std::to_string(previous) +
              ", expected strictly increasing indices");
      }
      if (features > 0 && *index > features) {
        wrong("feature index " + std::to_string(*index) + " is above the declared dimension " +
              std::to_string(features) + ", expected 1.." + std::to_string(features));
      }
      const std::optional<double> value = toFiniteNumber(value_text);
      if (!value) {
        wrong("feature " + std::to_string(*index) + " is " + quoted(value_text) + ", expected a finite number");
      }
      previous = *index;
      indices.push_back(*index - 1);
      values.push_back(*value);
    });
    largest_index = std::max(largest_index, previous);
    feature_starts.push_back(indices.size());
    label_starts.push_back(label_list.size());
    lines.push_back(line);
  }
  if (lines.empty()) throw DataError(source_name + ": no examples found (empty file?)");

  MultilabelTable data;
  data.source = source_name;
  data.features = features > 0 ? features : largest_index;
  data.labels = labels > 0 ? labels : largest_label + 1;
  const auto n = static_cast<Eigen::Index>(lines.size());
  // The table is dense: refuse one that could not be held rather than ask for the memory.
  constexpr double kMostCells = 67108864.0;  // 2^26 values: 512 MiB of doubles
  if (static_cast<double>(n) * data.features > kMostCells || static_cast<double>(n) * data.labels > kMostCells) {
    throw DataError(source_name + ": " + std::to_string(n) + " rows with feature indices up to " +
                    std::to_string(data.features) + " and labels up to " + std::to_string(data.labels - 1) +
                    " would make a dense table of more than 2^26 values; a mistyped index? (declare the features and "
                    "labels to have such a line named)");
  }
  data.x = Eigen::MatrixXd::Zero(n, data.features);
  data.y = LabelMatrix::Zero(n, data.labels);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto row = static_cast<std::size_t>(i);
    for (std::size_t k = feature_starts[row]; k < feature_starts[row + 1]; ++k) data.x(i, indices[k]) = values[k];
    for (std::size_t k = label_starts[row]; k < label_starts[row + 1]; ++k) data.y(i, label_list[k]) = 1;
  }
  for (int l = 0; l < data.labels; ++l) data.label_names.push_back(std::to_string(l));
  data.lines = std::move(lines);
  return data;
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

MultilabelTable parseMulanArff(std::istream& arff, const std::string& source_name, const MulanLabels& labels) {
  struct Attribute {
    std::string name;
    bool is_label = false;
    int column = 0;  ///< the column of x, or of y for a label
  };
  std::unordered_map<std::string, std::size_t> label_index;  // XML label name -> its place in `labels`
  for (std::size_t k = 0; k < labels.names.size(); ++k) label_index.emplace(labels.names[k], k);
  const std::string xml_name = labels.source.empty() ? std::string("the label file") : labels.source;

  MultilabelTable data;
  data.source = source_name;
  std::vector<Attribute> attributes;
  std::unordered_map<std::string, std::size_t> attribute_line;
  std::vector<double> x;        // row-major, features per row
  std::vector<std::uint8_t> y;  // row-major, labels per row
  bool in_data = false;
  std::string text;
  std::size_t line = 0;
  while (std::getline(arff, text)) {
    ++line;
    const auto wrong = [&](const std::string& what) { failAtLine(source_name, line, what); };
    const std::string_view row = trim(text);
    if (row.empty() || row.front() == '%') continue;

    if (!in_data) {
      // 1) the header: @relation, @attribute NAME TYPE, @data
      std::size_t end = 0;
      while (end < row.size() && !isBlank(row[end])) ++end;
      const std::string keyword = lowered(row.substr(0, end));
      std::string_view rest = trim(row.substr(end));
      if (keyword == "@relation") continue;
      if (keyword == "@data") {
        if (attributes.empty()) wrong("@data before any @attribute, expected the attributes first");
        for (std::size_t k = 0; k < labels.names.size(); ++k) {
          if (attribute_line.count(labels.names[k]) == 0) {
            failAtLine(xml_name, labels.lines[k], "label '" + labels.names[k] + "' is not an attribute of " + source_name +
                                                ", expected '@attribute " + labels.names[k] + " {0,1}' there");
          }
        }
        in_data = true;
        continue;
      }
      if (keyword != "@attribute") {
        wrong("found " + quoted(row) + (row.front() == '@' ? "" : " before @data") +
              ", expected @relation, @attribute or @data");
      }
      // the name, quoted if it holds blanks
      std::string name;
      if (!rest.empty() && (rest.front() == '\'' || rest.front() == '"')) {
        const std::size_t close = rest.find(rest.front(), 1);
        if (close == std::string_view::npos) wrong("the attribute name " + quoted(rest) + " has no closing quote");
        name = std::string(rest.substr(1, close - 1));
        rest = trim(rest.substr(close + 1));
      } else {
        std::size_t name_end = 0;
        while (name_end < rest.size() && !isBlank(rest[name_end])) ++name_end;
        name = std::string(rest.substr(0, name_end));
        rest = trim(rest.substr(name_end));
      }
      if (name.empty() || rest.empty()) wrong("found " + quoted(row) + ", expected @attribute NAME TYPE");
      if (const auto [first, inserted] = attribute_line.emplace(name, line); !inserted) {
        wrong("attribute '" + name + "' is declared a second time (first on line " + std::to_string(first->second) +
              "), expected each name once");
      }
      Attribute attribute{name, label_index.count(name) > 0, 0};
      if (attribute.is_label) {
        std::string type(rest);
        type.erase(std::remove_if(type.begin(), type.end(), [](char c) { return isBlank(c); }), type.end());
        if (type != "{0,1}") {
          wrong("attribute '" + name + "' is a label (named in " + xml_name + ") of type " + quoted(rest) +
                ", expected {0,1}");
        }
        attribute.column = data.labels++;
        data.label_names.push_back(name);
      } else {
        const std::string type = lowered(rest);
        if (type != "numeric" && type != "real" && type != "integer") {
          wrong("attribute '" + name + "' is of type " + quoted(rest) +
                ", expected numeric, real or integer (only the labels named in " + xml_name + " may be nominal)");
        }
        attribute.column = data.features++;
      }
      attributes.push_back(std::move(attribute));
      continue;
    }

    // 2) a data row, dense "v_1,...,v_m" or sparse "{index value, ...}" (left-out values are 0)
    const std::size_t x_start = x.size(), y_start = y.size();
    x.resize(x_start + static_cast<std::size_t>(data.features), 0.0);
    y.resize(y_start + static_cast<std::size_t>(data.labels), 0);
    const auto store = [&](std::size_t a, std::string_view value) {
      const Attribute& attribute = attributes[a];
      const std::string where = "value " + std::to_string(a + 1) + " (" + (attribute.is_label ? "label" : "attribute") +
                                " '" + attribute.name + "')";
      const char* expected = attribute.is_label ? "0 or 1" : "a finite number";
      if (value == "?") wrong(where + " is missing ('?'), expected " + expected);
      if (attribute.is_label) {
        if (value != "0" && value != "1") wrong(where + " is " + quoted(value) + ", expected " + expected);
        y[y_start + static_cast<std::size_t>(attribute.column)] = static_cast<std::uint8_t>(value[0] - '0');
      } else {
        const std::optional<double> number = toFiniteNumber(value);
        if (!number) wrong(where + " is " + quoted(value) + ", expected " + expected);
        x[x_start + static_cast<std::size_t>(attribute.column)] = *number;
      }
    };
    const std::string shape = std::to_string(attributes.size()) + " (" + std::to_string(data.features) +
                              " features and " + std::to_string(data.labels) + " labels)";
    if (row.front() == '{') {
      if (row.back() != '}') wrong("a sparse row that does not end with '}', expected {index value, ...}");
      const std::string_view inside = trim(row.substr(1, row.size() - 2));
      long previous = -1;
      if (!inside.empty()) {
        forEachPiece(inside, ',', [&](std::string_view entry) {
          entry = trim(entry);
          std::size_t blank = 0;
          while (blank < entry.size() && !isBlank(entry[blank])) ++blank;
          const std::optional<int> index = toInt(entry.substr(0, blank));
          if (!index || blank == entry.size()) wrong("sparse entry " + quoted(entry) + ", expected 'index value'");
          if (*index < 0 || static_cast<std::size_t>(*index) >= attributes.size()) {
            wrong("sparse index " + std::to_string(*index) + ", expected 0.." + std::to_string(attributes.size() - 1) +
                  " (0-based, " + shape + ")");
          }
          if (*index <= previous) {
            wrong("sparse index " + std::to_string(*index) + " follows index " + std::to_string(previous) +
                  ", expected strictly increasing indices");
          }
          previous = *index;
          store(static_cast<std::size_t>(*index), trim(entry.substr(blank)));
        });
      }
    } else {
      std::size_t count = 0;
      forEachPiece(row, ',', [&](std::string_view) { ++count; });
      if (count != attributes.size()) {
        wrong("found " + std::to_string(count) + " comma-separated values, expected " + shape);
      }
      std::size_t a = 0;
      forEachPiece(row, ',', [&](std::string_view value) { store(a++, trim(value)); });
    }
    data.lines.push_back(line);
  }
  if (!in_data) throw DataError(source_name + ": no @data section, expected @data after the attributes");
  if (data.lines.empty()) throw DataError(source_name + ": no rows after @data, expected at least one example");

  const auto n = static_cast<Eigen::Index>(data.lines.size());
  data.x = Eigen::Map<const RowMajorXd>(x.data(), n, data.features);
  data.y = Eigen::Map<const LabelMatrix>(y.data(), n, data.labels);
  return data;
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
