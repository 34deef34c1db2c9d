// mpi_scene OUT.tif ROWS COLS: the MPI tests' imagery (mpi_scene.hpp) for the command-line tests.
#include "mpi_scene.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: mpi_scene OUT.tif ROWS COLS\n");
    return 2;
  }
  try {
    mmp::test::writeSceneGeoTiff(argv[1], std::atoi(argv[2]), std::atoi(argv[3]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_scene: %s\n", e.what());
    return 1;
  }
  return 0;
}
