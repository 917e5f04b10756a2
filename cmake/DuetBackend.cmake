# duet_add_backend(<name> SOURCES ... [LIBRARIES ...] [OUTPUT_DIRECTORY <dir>])
# A backend plugin: libduet_backend_<name>.so in the build's backends/ directory (installed to duet/
# beside libduet_core.so), hidden visibility with only duet_backend_entry exported, $ORIGIN in its
# run path. One with an OUTPUT_DIRECTORY of its own (a test's) is neither run by the CLI nor installed.
function(duet_add_backend name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  set(target duet_backend_${name})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${DUET_BACKEND_OUTPUT_DIR})
    set_property(GLOBAL APPEND PROPERTY DUET_BACKEND_TARGETS ${target}) # a backend the CLI finds
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE duet_backend_common duet::warnings ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    BUILD_RPATH "$ORIGIN"
    INSTALL_RPATH "$ORIGIN")
  target_link_options(${target} PRIVATE LINKER:--no-undefined)
  if(ARG_OUTPUT_DIRECTORY STREQUAL DUET_BACKEND_OUTPUT_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/duet)
  endif()
endfunction()
