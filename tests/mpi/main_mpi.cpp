// The MPI suite's main: MPI around doctest, every process running every case (the cases' collective
// calls meet); run as `mpirun -np 2 --oversubscribe test_mpi` (tests/CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <mmp/core/mpi_processes.hpp>

int main(int argc, char** argv) {
  mmp::MpiSession mpi;
  doctest::Context context(argc, argv);
  return context.run();
}
