#include <mmp/core/mpi_processes.hpp>

#include <mmp/core/error.hpp>

#include <mpi.h>

#include <climits>
#include <string>

namespace mmp {
namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace

MpiSession::MpiSession() {
  int started = 0;
  MPI_Initialized(&started);
  if (started) throw Error("MPI is already running in this program; start one MpiSession");
  int provided = 0;
  const int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  if (code != MPI_SUCCESS) throw Error("MPI cannot start: " + mpiError(code));
}

MpiSession::~MpiSession() {
  int ended = 0;
  MPI_Finalized(&ended);
  if (!ended) MPI_Finalize();
}

void MpiSession::abortJob(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; if it did, this process still ends
}

MpiProcessGroup::MpiProcessGroup() {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) throw Error("MpiProcessGroup: MPI is not running (start an MpiSession first)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_free(&local);
  }
}

void MpiProcessGroup::sum(double* values, std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    throw InvalidArgument("MpiProcessGroup::sum: " + std::to_string(count) + " values, more than one MPI call takes (2^31 - 1)");
  }
  const int code = MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (code != MPI_SUCCESS) throw Error("MPI_Allreduce of " + std::to_string(count) + " values failed: " + mpiError(code));
}

}  // namespace mmp
