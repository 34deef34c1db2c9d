# MMP_CHECK_HEADERS: every public header compiles on its own.  One generated source per header includes
# it (twice: the include guard holds) and nothing else, compiled against the target that owns the header
# (mmp_header_check_<target as an identifier>, built with `all`).  A header that leans on an include of whoever included
# it before fails here.  CI turns it on; each generated source is cached by ccache like any other.
function(mmp_check_headers target include_root)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE "${include_root}" "${include_root}/mmp/*.hpp")
  set(sources "")
  foreach(header IN LISTS headers)
    string(MAKE_C_IDENTIFIER "${header}" name)
    set(source "${CMAKE_BINARY_DIR}/header_check/${name}.cpp")
    file(CONFIGURE OUTPUT "${source}" CONTENT "#include <${header}>\n#include <${header}>\n")
    list(APPEND sources "${source}")
  endforeach()
  string(MAKE_C_IDENTIFIER "${target}" id)
  add_library(mmp_header_check_${id} OBJECT ${sources})
  target_link_libraries(mmp_header_check_${id} PRIVATE ${target})
endfunction()
