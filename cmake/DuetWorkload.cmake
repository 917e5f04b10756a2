# duet_add_workload(<name> SOURCES ... [LIBRARIES ...])
# A workload plugin: libduet_workload_<name>.so in the build's workloads/ directory, where the
# CLI finds it (installed ones go to duet/workloads beside libduet_core.so). Its sources end
# with DUET_EXPORT_WORKLOAD(...).
function(duet_add_workload name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${DUET_WORKLOAD_OUTPUT_DIR})
  endif()
  set(target duet_workload_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE duet::workload ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  target_link_options(${target} PRIVATE LINKER:--no-undefined)
  set_property(GLOBAL APPEND PROPERTY DUET_WORKLOAD_TARGETS ${target})
endfunction()
