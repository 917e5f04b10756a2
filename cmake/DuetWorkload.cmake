# duet_add_workload(<name> SOURCES ... [LIBRARIES ...] [OUTPUT_DIRECTORY <dir>])
# A workload plugin, libduet_workload_<name>.so; its sources end with DUET_EXPORT_WORKLOAD(...) or
# DUET_EXPORT_WORKLOAD_SPEC(...). In duet's build it lands in the build's workloads/ directory, where
# the CLI finds it, and installs to duet/workloads beside libduet_core.so; in a project using the
# installed package, where that project's libraries land, for DUET_PLUGIN_PATH to name.
function(duet_add_workload name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  set(target duet_workload_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE duet::workload duet::warnings ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE LINKER:--no-undefined)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED DUET_WORKLOAD_OUTPUT_DIR) # duet's own workloads
    # Installed two levels below libduet_workload.so; vendor libraries (cuBLAS) keep their folder.
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${DUET_WORKLOAD_OUTPUT_DIR}
      INSTALL_RPATH "$ORIGIN/../.."
      INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/duet/workloads)
    # The algorithm libraries (kernels, launcher, reference) that duet's agreement tests link.
    set_property(GLOBAL APPEND PROPERTY DUET_ALGORITHM_LIBRARIES ${ARG_LIBRARIES})
  endif()
  set_property(GLOBAL APPEND PROPERTY DUET_WORKLOAD_TARGETS ${target})
endfunction()
