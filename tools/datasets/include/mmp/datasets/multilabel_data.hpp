// Readers for multilabel classification data sets (yeast, scene; see shared/data/multilabel): the
// data-set front end of `mmp multilabel`. Each example is a dense feature vector x in R^s and a label
// vector y in {0,1}^L; both readers return the same MultilabelTable, so a data set read from either
// format compares equal. The table is what the files hold; the core task's read-only view of it is
// mmp::MultilabelData (core/tasks/multilabel.hpp), built from x and the rows of y.
//
// LIBSVM multilabel, one example per line (readLibsvmMultilabel):
//   l1,l2,...  idx:val idx:val ...
// labels are 0-based integers (a line with no label starts with a space or a tab), feature indices
// are 1-based and strictly increasing, and an index left out is the value 0.
//
// MULAN (readMulanArff): an ARFF file
//   @relation NAME
//   @attribute NAME numeric           (also real, integer)
//   @attribute NAME {0,1}             (a label)
//   @data
//   v_1,v_2,...,v_m                   (dense rows; sparse rows "{index value, ...}" also read)
// with an XML file naming which attributes are labels: every <label name="..."> element, at any
// depth (MULAN's hierarchical labels nest), with or without a namespace prefix. The XML is parsed by
// hand, not validated: comments, <?...?>, <!...> and CDATA are skipped, the five predefined entities
// (&amp; &lt; &gt; &quot; &apos;) are decoded in names, and nothing else of XML is understood (no
// character references, no DTD entities, no check that the elements nest).
//
// Every malformed input throws mmp::DataError "<file>:<line>: <what was expected, what was found>".
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace mmp::datasets {

/// A multilabel data set as read from its files (named apart from core's mmp::MultilabelData, the
/// task's view that a table feeds).
struct MultilabelTable {
  using LabelMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  int features = 0;                      ///< s, the feature dimension
  int labels = 0;                        ///< L, the number of labels
  Eigen::MatrixXd x;                     ///< n x s: row i holds example i's features (left-out entries are 0)
  LabelMatrix y;                         ///< n x L: y(i, l) = 1 if example i has label l, else 0
  std::vector<std::string> label_names;  ///< L names: "0".."L-1" (LIBSVM), the attribute names (MULAN)
  std::vector<std::size_t> lines;        ///< source line of each example (1-based), for error messages
  std::string source;                    ///< the source name given to the reader

  std::size_t size() const { return static_cast<std::size_t>(x.rows()); }
};

/*!
    requires
        - features >= 0 and labels >= 0 (else throws mmp::InvalidArgument)
    ensures
        - reads LIBSVM multilabel lines from `in`; blank lines are skipped but counted
        - features > 0: the declared dimension, and a feature index above it is an error;
          features == 0: the dimension is the largest index seen
        - labels > 0: the declared label count, and a label >= labels is an error;
          labels == 0: the count is the largest label seen + 1
        - returns the examples in file order, with label_names "0".."L-1"
        - throws mmp::DataError "<source_name>:<line>: ..." at the first malformed line: a label that
          is not an integer >= 0, is out of range (or above 65535) or repeats; a feature that is not idx:value; an index
          that is not an integer >= 1, not above the previous one, or above the declared dimension; a
          value that is not a finite number. Throws mmp::DataError if there is no example.
        - the matrix is dense: a table of more than 2^26 values (512 MiB) (a stray huge index without a declared
          dimension) is refused with mmp::DataError instead of allocated
!*/
MultilabelTable parseLibsvmMultilabel(std::istream& in, const std::string& source_name, int features = 0,
                                      int labels = 0);
/// parseLibsvmMultilabel on the file at `path`, gzip or plain; throws mmp::DataError naming the path
/// if it cannot be opened.
MultilabelTable readLibsvmMultilabel(const std::string& path, int features = 0, int labels = 0);

/// The labels of a MULAN XML label file, in document order.
struct MulanLabels {
  std::vector<std::string> names;
  std::vector<std::size_t> lines;  ///< line of each <label> element (1-based)
  std::string source;
};

/*!
    ensures
        - returns the name attribute of every element whose local name is "label", in document order
        - throws mmp::DataError "<source_name>:<line>: ..." for a label element without a name, a name
          given twice, or an element, comment or attribute that does not end; and
          "<source_name>: ..." if there is no label element at all
!*/
MulanLabels parseMulanLabels(std::string_view xml, const std::string& source_name);

/*!
    requires
        - labels as parseMulanLabels returns it
    ensures
        - reads the ARFF text from `arff`: the attributes named by `labels` are the labels, in the
          ARFF's attribute order (which sets the columns of y and label_names), and every other
          attribute, in ARFF order, is a feature (the columns of x)
        - throws mmp::DataError "<source_name>:<line>: ..." at the first malformed line: a header line
          that is not @relation, @attribute or @data, a repeated attribute name, a label attribute
          that is not exactly {0,1} (in that order: a sparse row leaves out the first value), a
          feature attribute that is not numeric/real/integer, a row with the wrong number of values,
          a missing value '?', a feature value that is not a finite number, a label value other than
          0 or 1, a sparse index out of order or out of range
        - throws mmp::DataError "<labels.source>:<line>: label 'NAME' ..." for a label the XML names
          that no ARFF attribute has; mmp::DataError if there is no @data section or no row
!*/
MultilabelTable parseMulanArff(std::istream& arff, const std::string& source_name, const MulanLabels& labels);
/// parseMulanLabels and parseMulanArff on the files at the two paths (gzip or plain); throws
/// mmp::DataError naming the path if one cannot be opened.
MultilabelTable readMulanArff(const std::string& arff_path, const std::string& xml_path);

/// The standard train/test split of a shipped set under `root` (the folder holding multilabel/):
/// "yeast" (LIBSVM, 103 features, 14 labels) or "scene" (MULAN); throws InvalidArgument otherwise.
std::pair<MultilabelTable, MultilabelTable> readStandardSplit(const std::string& root, const std::string& set);

}  // namespace mmp::datasets
