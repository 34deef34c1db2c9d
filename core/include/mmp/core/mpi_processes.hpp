// MPI for mmp's data-parallel work (mmp::core_mpi, built with MMP_WITH_MPI): MpiSession starts and
// ends MPI in a program, MpiProcessGroup is the ProcessGroup (mmp/core/process_group.hpp) of every
// process of the job (MPI_COMM_WORLD), its sum one MPI_Allreduce.  The header needs no MPI: a
// program links mmp::core_mpi, which brings it.
//
//   mmp::MpiSession mpi;                             // or lazily, when a command needs it
//   auto processes = std::make_shared<mmp::MpiProcessGroup>();
//   params.processes = processes;                    // BatchSubgradient: one allreduce an iteration
//   mmp::computeRegion(region, *processes);          // region_costmap.hpp: windows over processes
#pragma once

#include <mmp/core/process_group.hpp>

namespace mmp {

/// MPI, started by the constructor (MPI_Init_thread, MPI_THREAD_FUNNELED: only the thread that made
/// the session calls MPI; oracle threads do not) and ended by the destructor (MPI_Finalize).  One at
/// a time in a program; throws mmp::Error if MPI cannot start or one is already running.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  /// Ends every process of the job with `code` (MPI_Abort): for the process that meets an error
  /// the others would wait for forever (a failed window of a region cost map).
  [[noreturn]] static void abortJob(int code);
};

/*!
    WHAT THIS OBJECT REPRESENTS
        Every process of the MPI job (MPI_COMM_WORLD).  requires: an MpiSession is running.
        sum() is MPI_Allreduce(MPI_SUM) in place: for a fixed process count the same reduction
        algorithm runs at every call, so the sums are the same at every run; every process receives
        the same sums (MPI's reduction result is the same on every process).
!*/
class MpiProcessGroup : public ProcessGroup {
 public:
  MpiProcessGroup();
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  /// Processes of the job on this machine (MPI_COMM_TYPE_SHARED), for dividing its cores.
  int localSize() const { return local_size_; }
  void sum(double* values, std::size_t count) override;

 private:
  int rank_ = 0, size_ = 1, local_size_ = 1;
};

}  // namespace mmp
