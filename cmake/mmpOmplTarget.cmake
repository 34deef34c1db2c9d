# ompl::ompl, the imported target mmp::planning_ompl links, after find_package(ompl): OMPL 1.6 and
# later define it themselves; Debian's OMPL 1.5 config gives variables only (OMPL_INCLUDE_DIRS,
# OMPL_LIBRARIES: libompl plus the Boost serialization/filesystem/system libraries and ODE it was
# built with), which this wraps.  Included by the build and by the installed mmpConfig.cmake.
if(NOT TARGET ompl::ompl)
  if(NOT OMPL_LIBRARIES OR NOT OMPL_INCLUDE_DIRS)
    message(FATAL_ERROR "mmp: find_package(ompl) gave neither the target ompl::ompl nor OMPL_LIBRARIES and OMPL_INCLUDE_DIRS")
  endif()
  add_library(ompl::ompl INTERFACE IMPORTED)
  set_target_properties(ompl::ompl PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${OMPL_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES "${OMPL_LIBRARIES}")
endif()
