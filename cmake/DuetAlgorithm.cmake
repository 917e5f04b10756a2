# duet_add_algorithm(<name> SOURCES ... [LIBRARIES ...] [PRIVATE_LIBRARIES ...]
#                    [OPENCL <file.cl>] [CUDA <file.cu>])
# One of duet's plugins/<name>/ folders: its kernels, launcher and reference (SOURCES) in the
# static library duet_<name> that tests link, with the folder as its include directory, duet::core
# and LIBRARIES for its users, and the kernels embedded as duet::kernels::<name>()
# (duet_embed_kernels); and the workload plugin built from the folder's workload.cpp over that
# library (duet_add_workload). Not installed: a project of its own uses those two (examples/heat2d).
function(duet_add_algorithm name)
  cmake_parse_arguments(ARG "" "OPENCL;CUDA" "SOURCES;LIBRARIES;PRIVATE_LIBRARIES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "duet_add_algorithm(${name}): unexpected arguments '${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  set(library duet_${name})
  add_library(${library} STATIC ${ARG_SOURCES})
  target_include_directories(${library} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${library} PUBLIC duet::core ${ARG_LIBRARIES}
                                   PRIVATE duet::warnings ${ARG_PRIVATE_LIBRARIES})
  set(kernels "")
  foreach(language OPENCL CUDA)
    if(ARG_${language})
      list(APPEND kernels ${language} ${ARG_${language}})
    endif()
  endforeach()
  if(kernels)
    duet_embed_kernels(${library} NAME ${name} ${kernels})
  endif()
  duet_add_workload(${name} SOURCES workload.cpp LIBRARIES ${library})
endfunction()
