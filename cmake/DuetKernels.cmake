# duet_embed_kernels(<target> NAME <name> [OPENCL <file.cl>] [CUDA <file.cu>] [PRIVATE])
# Embeds an algorithm's kernels into <target>: the OpenCL C and CUDA sources as text, and, when
# nvcc is found, the CUDA source compiled offline to a fatbin (SASS for each CMAKE_CUDA_ARCHITECTURES
# entry, default 80 and 90, plus PTX of the newest, for GPUs newer than the build). The target gets
# the header <duet_kernels/<name>.hpp> declaring `const duet::ProgramSource& duet::kernels::<name>()`.
# Every embedded .cl is also recorded in the global property DUET_OPENCL_KERNELS, so a test can
# build them all on every OpenCL device.
set(DUET_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_program.cmake)

# nvcc: in duet's build, the CUDA compiler its top level enabled (DUET_HAVE_NVCC); in a project
# using the installed package, the one CUDACXX names or else PATH holds. None: sources only.
if(DEFINED DUET_HAVE_NVCC)
  if(DUET_HAVE_NVCC)
    set(DUET_NVCC ${CMAKE_CUDA_COMPILER})
  endif()
elseif(NOT DUET_NVCC)
  if(DEFINED ENV{CUDACXX})
    set(DUET_NVCC $ENV{CUDACXX} CACHE FILEPATH "nvcc for duet_embed_kernels()")
  endif()
  find_program(DUET_NVCC nvcc DOC "nvcc for duet_embed_kernels()")
  if(DUET_NVCC)
    message(STATUS "duet: CUDA kernels compiled by ${DUET_NVCC}")
  else()
    message(STATUS "duet: no nvcc found (set CUDACXX or put nvcc on PATH); CUDA kernels ship as source, for NVRTC")
  endif()
endif()

function(duet_embed_kernels target)
  cmake_parse_arguments(ARG "PRIVATE" "NAME;OPENCL;CUDA" "" ${ARGN})
  if(NOT ARG_NAME)
    message(FATAL_ERROR "duet_embed_kernels(${target}): NAME is required")
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/duet_kernels)
  # Made now: nvcc writes the fatbin there, and only Ninja creates an output's folder itself.
  file(MAKE_DIRECTORY ${out_dir}/duet_kernels)
  set(images "")
  set(depends "")

  if(ARG_OPENCL)
    get_filename_component(cl_file ${ARG_OPENCL} ABSOLUTE)
    list(APPEND images "opencl_c=${cl_file}")
    list(APPEND depends ${cl_file})
    set_property(GLOBAL APPEND PROPERTY DUET_OPENCL_KERNELS "${ARG_NAME}=${cl_file}")
  endif()

  if(ARG_CUDA)
    # The source too, for NVRTC: builds with -D defines, and GPUs when no nvcc was at hand.
    get_filename_component(cu_file ${ARG_CUDA} ABSOLUTE)
    list(APPEND images "cuda_c=${cu_file}")
    list(APPEND depends ${cu_file})
  endif()
  if(ARG_CUDA AND DUET_NVCC)
    set(fatbin ${out_dir}/${ARG_NAME}.fatbin)
    set(architectures ${CMAKE_CUDA_ARCHITECTURES})
    if(NOT architectures)
      set(architectures 80 90)
    endif()
    set(gencode "")
    foreach(arch IN LISTS architectures)
      string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
      list(APPEND gencode "-gencode=arch=compute_${arch},code=sm_${arch}")
      set(newest ${arch})
    endforeach()
    list(APPEND gencode "-gencode=arch=compute_${newest},code=compute_${newest}")
    add_custom_command(
      OUTPUT ${fatbin}
      COMMAND ${DUET_NVCC} -fatbin -std=c++17 -O3 ${gencode} -o ${fatbin} ${cu_file}
      DEPENDS ${cu_file}
      COMMENT "nvcc: ${ARG_NAME}.cu -> fatbin (sm ${architectures} + PTX)"
      VERBATIM)
    list(APPEND images "fatbin=${fatbin}")
    list(APPEND depends ${fatbin})
  endif()

  set(source ${out_dir}/${ARG_NAME}.cpp)
  set(header ${out_dir}/duet_kernels/${ARG_NAME}.hpp)
  string(REPLACE ";" "|" images_arg "${images}")
  add_custom_command(
    OUTPUT ${source} ${header}
    COMMAND ${CMAKE_COMMAND} -DNAME=${ARG_NAME} "-DIMAGES=${images_arg}" -DSOURCE=${source} -DHEADER=${header}
            -P ${DUET_EMBED_SCRIPT}
    DEPENDS ${depends} ${DUET_EMBED_SCRIPT}
    COMMENT "duet: embedding kernels of ${ARG_NAME}"
    VERBATIM)
  target_sources(${target} PRIVATE ${source})
  # PRIVATE: the header is the target's own business (an installed library's kernels).
  if(ARG_PRIVATE)
    target_include_directories(${target} PRIVATE ${out_dir})
  else()
    target_include_directories(${target} PUBLIC ${out_dir})
  endif()
endfunction()
