// The OCR chain experiment shared by `mmp ocr` and `bench_ocr`: read the learner settings of
// configs/ocr_*.yaml, and train and test one fold of a protocol (the data: ocr_data.hpp).
//
// A fold's training time covers everything that uses the training words (building the examples,
// choosing lambda on a held-out part of them when asked, training); its testing time covers
// predicting every test word.  The per-epoch error curve, when asked for, is measured inside the
// learner's callback and its cost is taken out of the training time and reported on its own.
#pragma once

#include <mmp/frontend/config.hpp>
#include <mmp/datasets/ocr_data.hpp>

#include <mmp/core/formulation.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/learners/model_selection.hpp>

#include <string>
#include <vector>

namespace mmp::tools {

/// The learner where an OCR config leaves a key out: online GP (lambda 0.01, 20 epochs, shuffled,
/// late-weighted averaging) or batch subgradient (lambda 0.01, 200 iterations, late-weighted).
mmp::LearnerSettings ocrLearnerDefaults();

/// Which learner trains the chain, and how.
struct OcrLearnerSettings {
  mmp::LearnerSettings learner = ocrLearnerDefaults();
  /// What the learner optimises: margin scaling, slack scaling (approximate or exact) or PosLearn.
  mmp::Formulation formulation = mmp::Formulation::Margin;
  bool start_end = true;         ///< learn start and end weights (ChainLayout)
  /// beta_i = |y_i|^-q with the learner's q: every word counts the same (else every letter does).
  bool beta_by_length = false;
  /// When non-empty, each fold picks its lambda among these by the letter error on a held-out
  /// part of its training words (never the test fold), then retrains on all its training words.
  std::vector<double> validation_lambdas;
  double validation_fraction = 0.2;
  std::uint64_t validation_seed = 1;
  /// Also choose the number of passes (epochs or iterations, up to the configured count): the
  /// fewest passes whose held-out error is within validation_tolerance of the best seen.  The
  /// model after p passes does not depend on the configured count, so one run per lambda serves.
  bool validation_passes = false;
  double validation_tolerance = 0.0;
  int validation_extend_at_edge = 0;  ///< more lambdas while the choice is at the grid's edge (HeldOutParams)

  ChainOptions chainOptions() const;
  /// One line for a table: "online GP, lambda 0.01, 20 epochs, averaging late_weighted, beta 1/length".
  std::string describe() const;
};

/// The settings of a config (keys: learner (online, batch, cutting_plane or bcfw), objective (margin or
/// likelihood: the chain CRF, online or batch only), formulation, beta, start_end, online, batch,
/// cutting_plane, bcfw, validation); the other keys of the file are the caller's to check.
OcrLearnerSettings ocrLearnerSettings(const ConfigNode& config);
/// Every top-level key of an OCR config (configs/ocr_*.yaml), for expectKeys().
const std::vector<std::string>& ocrConfigKeys();

/// Mean letter errors after each pass over the training words (an online epoch or a batch
/// iteration), for the model the learner would return if it stopped there (with its averaging).
struct ErrorCurve {
  std::vector<long> passes;
  std::vector<double> train_error;
  std::vector<double> test_error;
};

struct OcrFoldResult {
  int fold = 0;
  std::size_t train_words = 0, test_words = 0, train_letters = 0, test_letters = 0;
  double lambda = 0.0;
  long passes = 0;  ///< epochs (online), or the iterations or passes the other learners ran
  /// If chosen by validation: each lambda with its best pass count and held-out letter error.
  using Validation = mmp::LambdaValidation;
  std::vector<Validation> validation;
  double train_error = 0.0, test_error = 0.0;
  /// train_seconds includes validation_seconds, the choice of lambda (and passes) if asked.
  double train_seconds = 0.0, test_seconds = 0.0, curve_seconds = 0.0, validation_seconds = 0.0;
  long iterations = 0;
  mmp::Formulation formulation = mmp::Formulation::Margin;  ///< as the final training's learner reports it
  std::string info;
  ErrorCurve curve;
};

/*!
    ensures
        - trains the chain on the protocol's training words of fold k with `settings` and tests
          it on the test words; letter errors are the fraction of wrong letters
        - if curve_points > 0, fills result.curve with at most about that many points
!*/
OcrFoldResult runOcrFold(const datasets::OcrWords& words, datasets::OcrProtocol protocol, int k, const OcrLearnerSettings& settings,
                         int curve_points = 0);

}  // namespace mmp::tools
