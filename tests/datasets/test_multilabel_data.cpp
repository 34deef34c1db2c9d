// The multilabel readers (LIBSVM multilabel, MULAN ARFF + XML): every bad-input path on small inline
// texts, a round trip through files, and the real yeast and scene sets from ../shared/data beside the
// checkout (or $MMP_DATA_ROOT/multilabel/...), where the scene ARFF must read as its LIBSVM form; the
// real-data cases say so and skip when the files are absent.
#include "temp_dir.hpp"
#include "support.hpp"
#include "test_paths.hpp"

#include <mmp/datasets/multilabel_data.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>


using namespace mmp;
using namespace mmp::datasets;

namespace {

std::string multilabelDataPath(const std::string& file) { return test::sharedDataPath("multilabel/" + file); }

MultilabelTable libsvm(const std::string& text, int features = 0, int labels = 0) {
  std::istringstream in(text);
  return parseLibsvmMultilabel(in, "mem.svm", features, labels);
}

constexpr const char* kXml =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<labels xmlns=\"http://mulan.sourceforge.net/labels\">\n"
    "<label name=\"Beach\"></label>\n"
    "<label name=\"Urban\"></label>\n"
    "</labels>\n";

MultilabelTable arff(const std::string& text, const std::string& xml = kXml) {
  const MulanLabels labels = parseMulanLabels(xml, "scene.xml");
  std::istringstream in(text);
  return parseMulanArff(in, "scene.arff", labels);
}

const std::string kHeader =
    "@relation MultiLabelData\n"
    "\n"
    "@attribute Att1 numeric\n"
    "@attribute Att2 numeric\n"
    "@attribute Beach {0,1}\n"
    "@attribute Urban {0,1}\n"
    "\n"
    "@data\n";  // rows start on line 9

std::vector<int> labelCounts(const MultilabelTable& data) {
  const Eigen::VectorXi counts = data.y.cast<int>().colwise().sum().transpose();
  return {counts.data(), counts.data() + counts.size()};
}

/// The labels as a matrix of ints, to compare with a literal.
Eigen::MatrixXi labelsOf(const MultilabelTable& data) { return data.y.cast<int>(); }

/// The layout every reader promises: n x s features, n rows of L values 0/1, L names, n lines.
void checkLayout(const MultilabelTable& data) {
  CAPTURE(data.source);
  CHECK(data.x.rows() == static_cast<Eigen::Index>(data.size()));
  CHECK(data.x.cols() == data.features);
  CHECK(data.y.rows() == static_cast<Eigen::Index>(data.size()));
  CHECK(data.y.cols() == data.labels);
  CHECK((data.y.array() <= 1).all());
  CHECK(data.label_names.size() == static_cast<std::size_t>(data.labels));
  CHECK(data.lines.size() == data.size());
  CHECK(data.x.allFinite());
}

}  // namespace

TEST_CASE("LIBSVM multilabel lines parse into dense features and 0/1 labels") {
  // a label list, an empty one (leading blank), a blank line, CRLF, a '+' sign, a left-out index
  const MultilabelTable data = libsvm("2,0 1:0.5 3:-1.25\n\t2:+3\n\n1 3:1e-3\r\n");
  REQUIRE(data.size() == 3);
  checkLayout(data);
  CHECK(data.features == 3);  // inferred: the largest index
  CHECK(data.labels == 3);    // inferred: the largest label + 1
  CHECK(data.label_names == std::vector<std::string>{"0", "1", "2"});
  CHECK(data.lines == std::vector<std::size_t>{1, 2, 4});
  CHECK(data.source == "mem.svm");
  Eigen::MatrixXd x(3, 3);
  x << 0.5, 0.0, -1.25, 0.0, 3.0, 0.0, 0.0, 0.0, 1e-3;
  CHECK(data.x == x);
  Eigen::MatrixXi y(3, 3);
  y << 1, 0, 1, 0, 0, 0, 0, 1, 0;
  CHECK(labelsOf(data) == y);

  // declared dimensions may exceed what the data uses: the extra columns are zero
  const MultilabelTable wide = libsvm("2,0 1:0.5 3:-1.25\n\t2:+3\n\n1 3:1e-3", 5, 4);
  checkLayout(wide);
  CHECK(wide.features == 5);
  CHECK(wide.labels == 4);
  CHECK(wide.x.leftCols(3) == x);
  CHECK(wide.x.rightCols(2).isZero());
  CHECK(labelsOf(wide).leftCols(3) == y);
  CHECK(labelsOf(wide).col(3).isZero());
  CHECK(wide.label_names.back() == "3");
}

TEST_CASE("a malformed LIBSVM multilabel line is refused with its line number and what was expected") {
  const std::string good = "0,1 1:0.5 2:0.25\n";
  const auto fails = [&](const std::string& text, const std::string& message, int features = 0, int labels = 0) {
    CHECK_THROWS_WITH_AS(libsvm(good + text, features, labels), doctest::Contains(message.c_str()), DataError);
  };
  fails("0,3 1:1\n", "mem.svm:2: label 3 is out of range, expected 0..2 (3 labels declared)", 0, 3);
  fails("a 1:1\n", "mem.svm:2: label 'a' is not an integer >= 0");
  fails("1.5 1:1\n", "mem.svm:2: label '1.5' is not an integer >= 0");
  fails("-1 1:1\n", "mem.svm:2: label '-1' is not an integer >= 0");
  fails("1,,2 1:1\n", "mem.svm:2: label '' is not an integer >= 0");
  fails("1:0.5 2:1\n", "(a line without labels starts with a space or a tab)");  // labels left out without the blank
  fails("2,2 1:1\n", "mem.svm:2: label 2 is listed twice");
  fails("0 0:1 2:1\n", "mem.svm:2: feature index 0, expected indices from 1 (LIBSVM features are 1-based)");
  fails("0 1:1 5:1 3:1\n", "mem.svm:2: feature index 3 follows index 5, expected strictly increasing indices");
  fails("0 1:1 1:2\n", "mem.svm:2: feature index 1 follows index 1");
  fails("0 1:1 4:1\n", "mem.svm:2: feature index 4 is above the declared dimension 3, expected 1..3", 3);
  fails("0 1:1 x:1\n", "mem.svm:2: feature index 'x' is not an integer");
  fails("0 1:1 2\n", "mem.svm:2: found '2', expected a feature index:value");
  fails("0 3:abc\n", "mem.svm:2: feature 3 is 'abc', expected a finite number");
  fails("0 3:nan\n", "mem.svm:2: feature 3 is 'nan', expected a finite number");
  fails("0 3:inf\n", "mem.svm:2: feature 3 is 'inf', expected a finite number");
  fails("0 3:-inf\n", "mem.svm:2: feature 3 is '-inf', expected a finite number");
  fails("0 3:1e999\n", "mem.svm:2: feature 3 is '1e999', expected a finite number");
  fails("0 3:\n", "mem.svm:2: feature 3 is '', expected a finite number");
  fails("\n\n0 3:1,5\n", "mem.svm:4: feature 3 is '1,5'");  // blank lines are skipped but counted
  CHECK_THROWS_WITH_AS(libsvm("\n \n"), doctest::Contains("mem.svm: no examples found"), DataError);
  CHECK_THROWS_AS(libsvm(good, -1, 0), InvalidArgument);
  CHECK_THROWS_AS(libsvm(good, 0, -1), InvalidArgument);
  // a stray huge index without a declared dimension: refused, not allocated
  fails("0 2000000000:1\n", "would make a dense table of more than 2^26 values");
  fails("22222220,0 1:1\n", "mem.svm:2: label 22222220 is above the 65535 that a table may hold");
  // without a declared dimension the same lines are fine
  CHECK(libsvm(good + "0,3 1:1 4:1\n").labels == 4);
  CHECK(libsvm(good + "0,3 1:1 4:1\n").features == 4);
}

TEST_CASE("multilabel MULAN label files give every label element's name, nested or namespaced, in document order") {
  const MulanLabels plain = parseMulanLabels(kXml, "scene.xml");
  CHECK(plain.names == std::vector<std::string>{"Beach", "Urban"});
  CHECK(plain.lines == std::vector<std::size_t>{3, 4});
  CHECK(plain.source == "scene.xml");

  // hierarchical labels nest; a prefix names the namespace; comments and CDATA hide what they hold
  const MulanLabels nested = parseMulanLabels(
      "<?xml version='1.0'?>\n"
      "<!-- <label name=\"Commented\"/> -->\n"
      "<m:labels xmlns:m=\"http://mulan.sourceforge.net/labels\">\n"
      "  <m:label name='Root'>\n"
      "    <m:label  name = \"Child &amp; &quot;one&quot;\" other=\"a>b\"/>\n"
      "    <m:label name=\"Child2\"><![CDATA[<label name=\"Hidden\"/>]]></m:label>\n"
      "  </m:label>\n"
      "  <labelish name=\"NotALabel\"/>\n"
      "</m:labels>\n",
      "h.xml");
  CHECK(nested.names == std::vector<std::string>{"Root", "Child & \"one\"", "Child2"});
  CHECK(nested.lines == std::vector<std::size_t>{4, 5, 6});

  const auto fails = [](const std::string& xml, const std::string& message) {
    CHECK_THROWS_WITH_AS(parseMulanLabels(xml, "bad.xml"), doctest::Contains(message.c_str()), DataError);
  };
  fails("<labels xmlns=\"x\">\n</labels>\n", "bad.xml: no <label name=\"...\"> element, expected at least one label");
  fails("", "bad.xml: no <label");
  fails("<labels>\n<label name=\"A\"/>\n<label id=\"B\"/>\n</labels>",
        "bad.xml:3: a <label> element without a name, expected <label name=\"...\">");
  fails("<labels>\n<label name=\"A\"/>\n\n<label name=\"A\"/>\n</labels>",
        "bad.xml:4: label 'A' is named a second time (first on line 2)");
  fails("<labels>\n<!-- <label name=\"A\"/>\n</labels>", "bad.xml:2: a comment does not end, expected '-->'");
  fails("<labels>\n<label name=\"A\"", "bad.xml:2: element <label> does not end");
  fails("<labels>\n<label name=A/>", "bad.xml:2: attribute 'name' of <label> has no quoted value");
}

TEST_CASE("multilabel MULAN ARFF rows, dense and sparse, split into features and the XML's labels") {
  // a label between the features: labels keep the ARFF's order, features the rest of it
  const MultilabelTable data = arff(
      "% a comment\n"
      "@RELATION 'scenes of a test'\n"
      "@attribute Att1 NUMERIC\n"
      "@attribute Urban { 0 , 1 }\n"
      "@attribute 'Att 2' real\n"
      "@attribute Beach {0,1}\n"
      "@attribute Att3 integer\n"
      "@data\n"
      "0.5, 1 ,-2,0,7\n"
      "% a comment between rows\n"
      "{0 1.5, 3 1}\n"
      "{}\n",
      "<labels><label name=\"Beach\"/><label name=\"Urban\"/></labels>");
  REQUIRE(data.size() == 3);
  checkLayout(data);
  CHECK(data.features == 3);
  CHECK(data.labels == 2);
  CHECK(data.label_names == std::vector<std::string>{"Urban", "Beach"});
  CHECK(data.lines == std::vector<std::size_t>{9, 11, 12});
  CHECK(data.source == "scene.arff");
  Eigen::MatrixXd x(3, 3);
  x << 0.5, -2.0, 7.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0;
  CHECK(data.x == x);
  Eigen::MatrixXi y(3, 2);  // (Urban, Beach)
  y << 1, 0, 0, 1, 0, 0;
  CHECK(labelsOf(data) == y);
}

TEST_CASE("a malformed multilabel MULAN ARFF is refused with its line number and what was expected") {
  const auto fails = [](const std::string& text, const std::string& message, const std::string& xml = kXml) {
    CHECK_THROWS_WITH_AS(arff(text, xml), doctest::Contains(message.c_str()), DataError);
  };
  const std::string good = "0.5,0.25,1,0\n";  // line 9
  fails(kHeader + good + "0.5,?,1,0\n",
        "scene.arff:10: value 2 (attribute 'Att2') is missing ('?'), expected a finite number");
  fails(kHeader + good + "0.5,0.25,?,0\n", "scene.arff:10: value 3 (label 'Beach') is missing ('?'), expected 0 or 1");
  fails(kHeader + good + "0.5,0.25,1\n",
        "scene.arff:10: found 3 comma-separated values, expected 4 (2 features and 2 labels)");
  fails(kHeader + good + "0.5,0.25,1,0,0\n", "scene.arff:10: found 5 comma-separated values, expected 4");
  fails(kHeader + good + "0.5,0.25,1,2\n", "scene.arff:10: value 4 (label 'Urban') is '2', expected 0 or 1");
  fails(kHeader + good + "0.5,0.25,0.0,1\n", "scene.arff:10: value 3 (label 'Beach') is '0.0', expected 0 or 1");
  fails(kHeader + good + "abc,0.25,1,0\n", "scene.arff:10: value 1 (attribute 'Att1') is 'abc', expected a finite");
  fails(kHeader + good + "0.5,nan,1,0\n", "scene.arff:10: value 2 (attribute 'Att2') is 'nan', expected a finite");
  fails(kHeader + good + "{1 inf}\n", "scene.arff:10: value 2 (attribute 'Att2') is 'inf', expected a finite number");
  fails(kHeader + good + "{4 1}\n", "scene.arff:10: sparse index 4, expected 0..3");
  fails(kHeader + good + "{2 1, 0 1}\n", "scene.arff:10: sparse index 0 follows index 2");
  fails(kHeader + good + "{2 1, 3 5}\n", "scene.arff:10: value 4 (label 'Urban') is '5', expected 0 or 1");
  fails(kHeader + good + "{2 1\n", "scene.arff:10: a sparse row that does not end with '}'");
  // a label the XML names that the ARFF lacks: the XML's line and the label's name
  fails(kHeader + good,
        "scene.xml:5: label 'Mountain' is not an attribute of scene.arff, expected '@attribute Mountain {0,1}'",
        "<labels>\n<label name=\"Beach\"/>\n<label name=\"Urban\"/>\n\n<label name=\"Mountain\"/>\n</labels>\n");
  // attribute types: labels {0,1}, everything else numeric
  std::string header = kHeader;
  fails(header.replace(header.find("Att2 numeric"), 12, "Att2 string"),
        "scene.arff:4: attribute 'Att2' is of type 'string', expected numeric, real or integer (only the labels "
        "named in scene.xml may be nominal)");
  header = kHeader;
  fails(header.replace(header.find("Att2 numeric"), 12, "Att2 {a,b}"),
        "scene.arff:4: attribute 'Att2' is of type '{a,b}'");
  header = kHeader;
  fails(header.replace(header.find("Urban {0,1}"), 11, "Urban numeric"),
        "scene.arff:6: attribute 'Urban' is a label (named in scene.xml) of type 'numeric', expected {0,1}");
  header = kHeader;
  fails(header.replace(header.find("Urban {0,1}"), 11, "Urban {1,0}"), "scene.arff:6: attribute 'Urban' is a label");
  header = kHeader;
  fails(header.replace(header.find("@attribute Beach"), 16, "@attribute Att1"),
        "scene.arff:5: attribute 'Att1' is declared a second time (first on line 3)");
  header = kHeader;
  fails(header.replace(header.find("@attribute Beach"), 10, "@attribut"),
        "scene.arff:5: found '@attribut Beach {0,1}', expected @relation, @attribute or @data");
  fails("0.5,0.25,1,0\n", "scene.arff:1: found '0.5,0.25,1,0' before @data, expected @relation, @attribute or @data");
  fails("@attribute Att1\n", "scene.arff:1: found '@attribute Att1', expected @attribute NAME TYPE");
  fails("@relation r\n@data\n", "scene.arff:2: @data before any @attribute");
  fails(kHeader.substr(0, kHeader.find("@data")), "scene.arff: no @data section");
  fails(kHeader, "scene.arff: no rows after @data");
}

TEST_CASE("multilabel files round-trip: written LIBSVM and ARFF files read back as the data written") {
  test::TempDir dir;
  Random rng(17);
  constexpr int n = 25, s = 7, L = 4;
  Eigen::MatrixXd x(n, s);
  Eigen::MatrixXi y(n, L);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < s; ++j) x(i, j) = rng.below(3) == 0 ? 0.0 : rng.normal() * 100.0;  // some exact zeros
    for (int l = 0; l < L; ++l) y(i, l) = static_cast<int>(rng.below(2));
  }
  y.row(3).setZero();  // an example without labels
  x.col(s - 1).setZero();  // a feature that no line lists: only a declared dimension keeps it
  const auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  const std::string svm_path = dir.file("data.svm"), arff_path = dir.file("data.arff"), xml_path = dir.file("data.xml");
  {
    std::ofstream svm(svm_path), arff_file(arff_path), xml(xml_path);
    xml << "<?xml version=\"1.0\"?>\n<labels xmlns=\"http://mulan.sourceforge.net/labels\">\n";
    arff_file << "@relation roundtrip\n";
    for (int j = 0; j < s; ++j) arff_file << "@attribute f" << j << " numeric\n";
    for (int l = 0; l < L; ++l) {
      arff_file << "@attribute y" << l << " {0,1}\n";
      xml << "  <label name=\"y" << l << "\"></label>\n";
    }
    xml << "</labels>\n";
    arff_file << "@data\n";
    for (int i = 0; i < n; ++i) {
      std::string list;
      for (int l = 0; l < L; ++l) {
        if (y(i, l) == 1) list += (list.empty() ? "" : ",") + std::to_string(l);
      }
      svm << list;
      for (int j = 0; j < s; ++j) {
        if (x(i, j) != 0.0) svm << ' ' << j + 1 << ':' << number(x(i, j));
        arff_file << number(x(i, j)) << ',';
      }
      svm << '\n';
      for (int l = 0; l < L; ++l) arff_file << y(i, l) << (l + 1 < L ? "," : "\n");
    }
  }
  const MultilabelTable from_svm = readLibsvmMultilabel(svm_path, s, L);
  const MultilabelTable from_arff = readMulanArff(arff_path, xml_path);
  for (const MultilabelTable* data : {&from_svm, &from_arff}) {
    CAPTURE(data->source);
    REQUIRE(data->size() == static_cast<std::size_t>(n));
    checkLayout(*data);
    CHECK(data->features == s);
    CHECK(data->labels == L);
    CHECK(data->x == x);  // %.17g text gives back the same doubles
    CHECK(labelsOf(*data) == y);
  }
  CHECK(from_arff.label_names == std::vector<std::string>{"y0", "y1", "y2", "y3"});
  CHECK(from_svm.source == svm_path);
  CHECK(readLibsvmMultilabel(svm_path).features == s - 1);  // inferred: the last column is never listed

  // a file that cannot be opened is named
  const std::string missing = dir.file("missing.svm");
  const std::string cannot_open = "cannot open '" + missing + "'";
  CHECK_THROWS_WITH_AS(readLibsvmMultilabel(missing), doctest::Contains(cannot_open.c_str()), DataError);
  CHECK_THROWS_WITH_AS(readMulanArff(missing, xml_path), doctest::Contains(cannot_open.c_str()), DataError);
  CHECK_THROWS_WITH_AS(readMulanArff(arff_path, missing), doctest::Contains(cannot_open.c_str()), DataError);
}

TEST_CASE("the real yeast multilabel data: 1500 + 917 examples, 103 features, 14 labels, the README's label counts") {
  const std::string train_path = multilabelDataPath("yeast/yeast_train.svm");
  const std::string test_path = multilabelDataPath("yeast/yeast_test.svm");
  if (!std::ifstream(train_path) || !std::ifstream(test_path)) {
    MESSAGE("skipped: no yeast data at " << train_path
                                         << " (set MMP_DATA_ROOT to the folder holding multilabel/yeast)");
    return;
  }
  const MultilabelTable train = readLibsvmMultilabel(train_path);  // dimensions inferred
  checkLayout(train);
  CHECK(train.size() == 1500);
  CHECK(train.features == 103);
  CHECK(train.labels == 14);
  CHECK(labelCounts(train) ==
        std::vector<int>{476, 645, 598, 532, 441, 378, 261, 289, 98, 161, 198, 1128, 1116, 21});
  CHECK((labelsOf(train).rowwise().sum().array() > 0).all());  // no example without a label
  const MultilabelTable test = readLibsvmMultilabel(test_path, 103, 14);
  checkLayout(test);
  CHECK(test.size() == 917);
  CHECK(labelCounts(test) == std::vector<int>{286, 393, 385, 330, 281, 219, 167, 191, 80, 92, 91, 688, 683, 13});
}

TEST_CASE("the real scene multilabel data: the MULAN ARFF reads as the LIBSVM form derived from it") {
  const std::string xml_path = multilabelDataPath("scene/scene.xml");
  if (!std::ifstream(xml_path)) {
    MESSAGE("skipped: no scene data at " << xml_path << " (set MMP_DATA_ROOT to the folder holding multilabel/scene)");
    return;
  }
  const MultilabelTable train = readMulanArff(multilabelDataPath("scene/scene-train.arff"), xml_path);
  checkLayout(train);
  CHECK(train.size() == 1211);
  CHECK(train.features == 294);
  CHECK(train.labels == 6);
  CHECK(train.label_names == std::vector<std::string>{"Class1", "Class2", "Class3", "Class4", "Class5", "Class6"});
  CHECK(labelCounts(train) == std::vector<int>{227, 165, 197, 196, 277, 224});
  CHECK(train.x.minCoeff() >= 0.0);
  CHECK(train.x.maxCoeff() <= 1.0);
  const MultilabelTable test = readMulanArff(multilabelDataPath("scene/scene-test.arff"), xml_path);
  checkLayout(test);
  CHECK(test.size() == 1196);
  CHECK(labelCounts(test) == std::vector<int>{200, 199, 200, 237, 256, 207});

  // both readers on the same data: the LIBSVM files copy the ARFF's values as text
  for (const auto& [arff_data, svm_file] :
       {std::pair{&train, "scene/scene_train"}, std::pair{&test, "scene/scene_test"}}) {
    const std::string file = svm_file;  // a structured binding cannot be captured (C++17)
    CAPTURE(file);
    const MultilabelTable svm = readLibsvmMultilabel(multilabelDataPath(file), 294, 6);
    checkLayout(svm);
    REQUIRE(svm.size() == arff_data->size());
    CHECK(svm.x == arff_data->x);
    CHECK(svm.y == arff_data->y);
  }
}
