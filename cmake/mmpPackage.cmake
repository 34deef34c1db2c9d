# `cpack -G DEB` in a build folder makes mmp_<version>_amd64.deb: everything `cmake --install` puts
# under /usr -- the libraries, headers and CMake package (find_package(mmp)), the `mmp` command, the
# Python module in Debian's dist-packages (with MMP_BUILD_PYTHON), the configs and shipped models in
# /usr/share/mmp.  dpkg-shlibdeps (Debian's dpkg-dev) derives the run-time dependencies from the
# binaries; the -dev packages below are what an outside project that builds against mmp's headers and
# static libraries needs (the same find_dependency calls as mmpConfig.cmake).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mmp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the mmp developers")
set(CPACK_PACKAGE_CONTACT "the mmp developers <mmp@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "learn robot path-planning cost maps from demonstrations (maximum margin planning)")
set(CPACK_PACKAGE_DESCRIPTION "mmp learns planning cost maps from aerial imagery and demonstrated paths by maximum margin \
planning, adapts shipped models to a new site from a few paths, and exports Nav2 maps and GeoTIFFs; a C++17 library, \
the mmp command and a Python module.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mmp_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(MMP_DEB_DEPENDS libeigen3-dev libopencv-dev libopencv-contrib-dev libgdal-dev libjpeg-dev zlib1g-dev)
if(MMP_BUILD_OMPL)
  list(APPEND MMP_DEB_DEPENDS libompl-dev)
endif()
if(MMP_MPI_FOUND)  # mmp::core_mpi and mpirun-able mmp commands (docs/mpi.md)
  list(APPEND MMP_DEB_DEPENDS libopenmpi-dev openmpi-bin)
endif()
if(MMP_BUILD_PYTHON)
  list(APPEND MMP_DEB_DEPENDS "python3 (>= ${MMP_PYTHON_VERSION})" python3-numpy)
endif()
list(JOIN MMP_DEB_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# Files that other Debian packages own must not be in the package: keep the install under /usr only.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
