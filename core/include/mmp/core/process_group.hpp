// ProcessGroup: the processes of a data-parallel run (MPI's ranks, or any other transport), seen by
// the learners as one operation -- sum a vector over every process -- so that mmp::core and
// mmp::learners need no MPI.  A batch learner given one (BatchSubgradient::Params::processes) calls
// the oracles of its share of the examples (exampleShare) and sums its part of the objective and
// subgradient with the other processes' once per iteration; the MPI implementation is
// mmp::core_mpi's MpiProcessGroup (mmp/core/mpi_processes.hpp, core/src/mpi_processes.cpp; that
// target is built with MMP_WITH_MPI), which the mmp command uses when mpirun or srun starts it
// (tools/cli/processes.cpp).
//
//   class Mine : public mmp::ProcessGroup { ... };   // rank(), size(), sum()
//   params.processes = std::make_shared<Mine>();     // every process runs the same training
#pragma once

#include <cstddef>

namespace mmp {

/*!
    WHAT THIS OBJECT REPRESENTS
        size() processes that run the same program on the same data and combine partial results.
        sum() is collective: every process calls it, in the same order, with the same count.
    THREAD SAFETY
        sum() is called from one thread of each process at a time.
!*/
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  /// This process, in [0, size()).
  virtual int rank() const = 0;
  /// The processes, >= 1.
  virtual int size() const = 0;
  /*!
      requires: every process calls it with the same count
      ensures: values[i] becomes the sum of values[i] over the processes, the same on every process
               and the same at every run with the same processes (the order of the sum is fixed)
  !*/
  virtual void sum(double* values, std::size_t count) = 0;
};

/// The group of this process alone (sum leaves the values as they are).
class SingleProcess : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(double*, std::size_t) override {}
};

/// The examples [begin, end) of process `rank` of `size`: contiguous blocks in example order, their
/// sizes differing by at most one (the first n % size processes hold one more).
struct ExampleShare {
  std::size_t begin = 0, end = 0;
};
ExampleShare exampleShare(std::size_t examples, int rank, int size);

}  // namespace mmp
