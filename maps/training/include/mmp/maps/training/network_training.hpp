// Network training: the convolutional cost network of cost_network.hpp learned by maximum margin
// planning through the path oracle (PathExample), with libtorch (PyTorch's C++ API) behind this one
// header: nothing here includes torch, and only src/network_torch.cpp does, built as the module
// libmmp_torch.so that the program's registered backend loads on the first network trained
// (network_backend.hpp), so that no other program or command loads libtorch.  fineTuneNetwork (below)
// adapts a trained network to new demonstrations through the same oracle (the teacher's adaptation,
// adaptation.hpp).
//
// The log-cost of cell s of image j is l_j(s) = w0 . f(s) + net(x_j)(s) (w0 fixed: 0, or a trained
// linear start).  For each demonstration y_i on image j the oracle gives the loss-augmented plan
// y*_i = argmin_y C_aug(y) under exp(l_j - l_i) (PathExample::planLogCosts, loss weight 1), and the
// subgradient of the MMP objective R = sum_i beta_i [C(y_i) - C_aug(y*_i)] with respect to the
// log-costs is, as LEARCH's exponentiated functional gradient (learch.hpp),
//     g_j(s) = sum_i beta_i (visits of y_i at s - visits of y*_i at s)      (trapezoid weights)
// divided by the image's demonstrations: a descent step lowers the costs along the demonstrations and
// raises them where the plans went.  Its mean over the image's passable cells is subtracted: scaling
// every cost alike changes no plan, only R's scale, so that component would merely shrink every cost
// until the bounded log-cost saturates (measured: R fell 250-fold in one epoch while the plans did not
// improve).  g is back-propagated through the network (libtorch autograd) and AdamW takes the step,
// with (decoupled) weight decay as the regulariser: with Adam's L2 term the decay outweighed the visit
// gradients, which are small per weight, and held the costs near uniform.  One step per training
// image, the images in a seeded order each epoch.
//
// With objective Likelihood the network is trained by Maximum Entropy IRL instead (maxent_planner.hpp):
// the model's cell costs are c(s) = f0 + exp(l(s)), f0 = shape.cost_floor >= kMaxEntSafeCost so that
// every path distribution stays normalisable, and each demonstration's term is its negative
// log-likelihood C(y_i) + log Z_i, whose gradient with respect to the cost c(s) is
//     beta_i (visits of y_i at s - expected visits at s)
// (PathExample::softPlanLogCosts, its region margin included).  As with the margin, that functional
// gradient is taken on l itself (LEARCH's exponentiated step, as learch.hpp's MaxEnt does), without
// the chain rule's factor dc/dl = exp(l): with it, cells whose exp(l) is small against f0 take no step
// at all (measured: a follow_road network on costs at the floor did not move in 7 epochs).  Nothing is
// projected out: under the likelihood the uniform component is the model's temperature.  On the Dubai
// behaviours it drives the costs to the floor within the first epochs (docs/maxent.md); projected out
// as with the margin, the NLL of the tests' synthetic scenes rose and oscillated instead of falling.
// Early stopping scores the same relative margin violation on the model's costs, so that the two
// objectives are stopped by one measure.  Smoothing does not apply (the expectation is smooth).
//
// The output layer starts at zero, so epoch 0 is the start's log-cost itself (uniform costs, or the
// linear model's) and early stopping can only keep a network that does better on the validation area.
//
// What helps it generalise, each a setting (so each can be measured on and off):
//   - colours standardised per image (NetworkShape::normalise);
//   - augmentation: each step sees its image in one of the 8 flips and quarter turns and with its
//     colour planes jittered (x -> a x + b per channel, a in [1 - jitter, 1 + jitter], b in
//     [-jitter, jitter]); the costs are turned back before the oracle plans on them;
//   - early stopping on the images marked `validation` (a training area left out of the steps): after
//     every epoch their demonstrations' mean relative margin violation (C(y_i) - min_y C_aug(y)) / C(y_i)
//     is measured, and the network of the best epoch is kept; training stops after `patience` epochs
//     without improvement.  (Not the prediction loss of plain plans: on nearly uniform costs A*'s
//     tie-breaking decides it, which made networks of constant costs look best.)
//   - an ensemble (NetworkShape::members): each member is trained alone from its own seed;
//   - smoothed subgradients: the visits of each plan averaged over `smoothing_samples` plans on log-costs
//     perturbed by independent Gaussian noise of `smoothing_sigma` per cell (Berthet et al. 2020);
//   - with labels (label-assisted, off by default): an auxiliary 1 x 1 head on the last hidden layer
//     predicts each cell's class, its cross-entropy (weight `label_weight`) added to the objective.
//     The head is not part of the returned network.
// `segmenter` trains the same network on the labels alone: its output is the classes' logits, and the
// pipeline gives it the per-pixel classifier baseline's cost assignment (NetworkShape): what labels buy
// over demonstrations, with the same eyes.
//
// Reproducibility: the result depends only on the images, the settings, the thread count libtorch
// uses (`threads`, 0 = every core) and the numeric kernels its convolutions run on: at a fixed thread
// count and kernels it is the same bit for bit.  The kernels are chosen by the CPU unless the
// environment pins them (kNetworkKernelPins), and training amplifies their last-bit differences: on
// the Dubai behaviours the holdout cost ratio of one config moved by up to 0.57 between this CPU's own
// AVX-512 kernels and the AVX2 ones (docs/results-network.md).  The `mmp` command and Python's package
// pin them at start (network_backend.hpp).
#pragma once

#include <mmp/learners/learner.hpp>
#include <mmp/maps/training/network_backend.hpp>
#include <mmp/maps/cost_network.hpp>
#include <mmp/planning/path_example.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mmp {

struct NetworkTrainingSettings {
  /// The pipeline's start w0: the weights of the linear learner of learner.kind, trained with
  /// exponential costs (the network learns what they miss); else w0 = 0, the network alone.
  bool from_linear = false;
  /// Margin (MMP through the loss-augmented oracle) or Likelihood (Maximum Entropy IRL; needs
  /// shape.cost_floor >= kMaxEntSafeCost, one smoothing sample, and no segmenter).
  TrainingObjective objective = TrainingObjective::Margin;
  NetworkShape shape;
  /// The pipeline's inputs: also the stacked features' scaled values (shape.feature_inputs planes,
  /// appendFeatureInputs), not the cell's colours alone.  Chosen on by the validation area of the
  /// Dubai data (tile 6) for follow_road and cross_country (docs/results-network.md).
  bool features = true;
  int epochs = 20;                 ///< passes over the training images, in [1, 10000]
  /// AdamW's learning rate, > 0.  Chosen among 0.001, 0.003 and 0.01 (with and without augmentation)
  /// by the validation loss on tile 6 of the Dubai data, trained on tiles 1 and 5 for 15 epochs
  /// (docs/results-network.md); 0.03 and more left every ReLU dead (constant costs).
  double step = 0.003;
  double weight_decay = 1e-4;      ///< L2 weight on every parameter, >= 0
  bool augment = true;             ///< flips, quarter turns and colour jitter
  double jitter = 0.1;             ///< colour jitter, in [0, 1)
  bool early_stopping = true;      ///< keep the best epoch on the validation images
  int patience = 6;                ///< epochs without improvement before stopping, >= 1
  int smoothing_samples = 1;       ///< plans per demonstration on perturbed costs, in [1, 32] (1: exact)
  double smoothing_sigma = 0.1;    ///< standard deviation of the log-cost noise, >= 0
  double label_weight = 0.0;       ///< the auxiliary label head's weight, >= 0 (0: demonstrations alone)
  /// The label-trained baseline: the same network trained on the labels alone (cross-entropy, no
  /// demonstration), early stopping on the validation images' cross-entropy; shape.classes must be
  /// the classes (the pipeline sets them and the cost assignment, NetworkShape::cost_scale).
  bool segmenter = false;
  std::uint64_t seed = 1;
  int threads = 0;                 ///< libtorch's threads and the oracle's, in [0, 256]; 0 = every core

  /// Throws mmp::InvalidArgument naming the first setting (as "network.step") outside its range.
  void validate() const;
  /// One line: "16 channels, ..., 20 epochs, AdamW 0.003, ...".
  std::string describe() const;
};

/// A mark on a network's teaching image (CostModelTeacher::avoid, prefer): its cells' mean log-cost
/// (linear + network) is held at least (avoid) or at most (prefer) `gap` above the mean over every
/// demonstration's cells, or the parent's gap where that is already on the mark's side.
struct NetworkMark {
  std::vector<int> cells;
  bool avoid = true;
  double gap = 0.0;
};

/// One training image of the network.
struct NetworkImage {
  std::string name;                     ///< for messages
  int rows = 0, cols = 0;               ///< cells
  std::vector<float> inputs;            ///< networkInputs of the image, then its feature inputs (shape.inputs() planes)
  std::vector<double> linear;           ///< w0 . f per cell, +inf on blocked cells (rows * cols)
  std::vector<const PathExample*> examples;  ///< its demonstrations (PathExamples on its map)
  std::vector<NetworkMark> marks;       ///< fineTuneNetwork: its marks
  bool validation = false;              ///< scored for early stopping, never stepped on
  std::vector<std::uint8_t> labels;     ///< per cell class in [0, classes), 255 = none; empty = no labels
};

/// One epoch of one member.
struct NetworkEpoch {
  int member = 0;
  int epoch = 0;                  ///< 0: the untrained network
  double objective = 0.0;         ///< R (or the NLL) of the file comment over the epoch's steps (NaN: scored, not stepped)
  double validation_loss = 0.0;   ///< mean relative margin violation on the validation images (NaN without)
  double seconds = 0.0;           ///< since training started
};

struct NetworkResult {
  CostNetwork network;
  std::vector<NetworkEpoch> epochs;
  std::vector<int> kept_epochs;   ///< per member, the epoch whose network it keeps
  std::string message;            ///< how training ended, per member
  /// fineTuneNetwork: NumericalIssue when a step was refused and the last good network kept.
  Info info = Info::Success;
};

/// Called after each epoch; returning false stops training (the networks kept so far are returned).
using NetworkCallback = std::function<bool(const NetworkEpoch&)>;

/*!
    requires: images non-empty, at least one not `validation` with examples; each image's inputs,
              linear and labels (if any) of its rows x cols cells; classes > 0 if label_weight > 0
              and every training image has labels (throws mmp::InvalidArgument naming the image
              otherwise); settings valid
    ensures: the network of the file comment, trained member by member
!*/
NetworkResult trainNetwork(const std::vector<NetworkImage>& images, const NetworkTrainingSettings& settings,
                           int classes = 0, const NetworkCallback& callback = {});

/// Fine-tuning a trained network on new demonstrations (the teacher's adaptation, adaptation.hpp).
struct NetworkAdaptationSettings {
  /// The proximal term's strength lambda in (lambda/2) |theta - theta0|^2 toward the parent's
  /// parameters theta0, > 0: after each step theta -> theta0 + (theta - theta0) / (1 + step lambda).
  double lambda = 1.0;
  double step = 1e-3;     ///< Adam's learning rate on the hinge terms, > 0
  int epochs = 10;        ///< steps: one per epoch over every demonstration, >= 1
  bool head_only = false; ///< only the last 1 x 1 layer (the output) moves; the others stay the parent's
  int threads = 1;        ///< libtorch's threads and the oracle's, in [0, 256]; 0 = every core
};

/*!
    requires: parent a cost network (not a segmenter); images non-empty, each with inputs and linear
              of its rows x cols cells as NetworkImage says (the linear part fixed); at least one with
              demonstrations; settings within their ranges (mmp::InvalidArgument naming them otherwise)
    ensures: each member of `parent` fine-tuned from its own parameters theta0 by the MMP oracle of
             trainNetwork (the loss-augmented plan per demonstration, on log-costs linear + network,
             the parent's cost floor included): per epoch one Adam step on the hinge terms' mean over
             every demonstration (the image's share of each gradient in demonstration order), then the
             proximal step toward theta0 -- minimising (lambda/2) |theta - theta0|^2 + the hinge terms
             + each mark's hinge on its gap (NetworkMark; mean log-costs linear + network, the parent's
             gap where already on the mark's side), weighted by the demonstrations' mean length in
             cells, so that a broken mark pulls as one demonstration does.  After every step the costs
             floor + exp(linear + network) of every image's passable cells are checked against CostLimits (costRangeFault): a network outside them, with a parameter
             that is not finite, or whose oracle failed, is not kept -- the last good one is, with
             NetworkResult::message saying so ("kept the model of epoch k").  The same bit for bit at a
             fixed thread count and kernels.  Throws mmp::Error if libtorch cannot be loaded.
!*/
NetworkResult fineTuneNetwork(const CostNetwork& parent, const std::vector<NetworkImage>& images,
                              const NetworkAdaptationSettings& settings);

/// libtorch's forward pass of a network (its members combined as CostNetwork::logCosts does), on
/// inputs of rows x cols cells: what training planned on, to check CostNetwork::logCosts against.
std::vector<double> torchLogCosts(const CostNetwork& network, const std::vector<float>& inputs, int rows, int cols);

/// Whether this build has libtorch (MMP_WITH_TORCH); without it trainNetwork throws mmp::Error saying so.
/// With it, trainNetwork, fineTuneNetwork and torchLogCosts get libtorch's module from the program's
/// registered backend (network_backend.hpp) on first use and throw mmp::Error with the loader's reason
/// if it cannot load it (where it looked, or an address-space limit too small for libtorch), or saying
/// how to register one if the program registered none.
bool networkTrainingAvailable();

/// Which kernels a network trained in this process runs on, from the environment: "pinned (...)" when
/// every kNetworkKernelPins value is in effect, else the values set and "this CPU's own" for the rest,
/// with a warning that results can then differ from another CPU's.
std::string networkKernels();

}  // namespace mmp
