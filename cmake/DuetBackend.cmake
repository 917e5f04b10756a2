# duet_add_backend(<name> SOURCES ... [LIBRARIES ...])
# A backend plugin: libduet_backend_<name>.so in the build's backends/ directory, hidden
# visibility with only duet_backend_entry exported, $ORIGIN in its run path.
function(duet_add_backend name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  set(target duet_backend_${name})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${DUET_BACKEND_OUTPUT_DIR})
    set_property(GLOBAL APPEND PROPERTY DUET_BACKEND_TARGETS ${target}) # a backend the CLI finds
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE duet_backend_common ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    BUILD_RPATH "$ORIGIN"
    INSTALL_RPATH "$ORIGIN")
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  target_link_options(${target} PRIVATE LINKER:--no-undefined)
endfunction()
