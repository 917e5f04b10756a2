# duet_embed_kernels(<target> NAME <name> [OPENCL <file.cl>] [CUDA <file.cu>] [PRIVATE])
# Embeds one program's kernels into <target>: the OpenCL C and CUDA sources as text, and, when
# nvcc is found, the CUDA source compiled offline to a fatbin (SASS for each CMAKE_CUDA_ARCHITECTURES
# entry, default 80 and 90, plus PTX of the newest, for GPUs newer than the build) and that PTX as
# text too, to be read (Program::assembly). The target gets
# the header <duet_kernels/<name>.hpp> declaring `const duet::ProgramSource& duet::kernels::<name>()`.
# <name> need not be the files' name: a target embeds several programs by calling this once for
# each, under names of their own (naive/step.cl as step_naive, pyramid/step.cl as step_pyramid).
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
  set(call "duet_embed_kernels(${target})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${call}: unexpected arguments '${ARG_UNPARSED_ARGUMENTS}'; "
                        "it takes NAME <name>, OPENCL <one .cl>, CUDA <one .cu> and PRIVATE, one call a program")
  endif()
  if(NOT ARG_NAME)
    message(FATAL_ERROR "${call}: NAME is required")
  endif()
  # The name becomes a C++ function and a header's file name.
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${call}: NAME '${ARG_NAME}' is not a C++ identifier (letters, digits and _, "
                        "not starting with a digit); it names duet::kernels::<name>()")
  endif()
  if(NOT ARG_OPENCL AND NOT ARG_CUDA)
    message(FATAL_ERROR "${call}: NAME ${ARG_NAME} has no kernels to embed; "
                        "give OPENCL <file.cl>, CUDA <file.cu> or both")
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/duet_kernels)
  # Made now: nvcc writes the fatbin there, and only Ninja creates an output's folder itself.
  file(MAKE_DIRECTORY ${out_dir}/duet_kernels)
  set(images "")
  set(depends "")
  set(files "") # the sources as this call names them, for the build's messages

  foreach(language OPENCL CUDA)
    if(ARG_${language})
      get_filename_component(${language}_file ${ARG_${language}} ABSOLUTE)
      # A file a rule of this directory writes (GENERATED) comes at build time.
      get_source_file_property(generated ${${language}_file} GENERATED)
      if(NOT EXISTS ${${language}_file} AND NOT generated)
        message(FATAL_ERROR "${call}: ${language} file ${ARG_${language}} not found "
                            "(looked for ${${language}_file})")
      endif()
      list(APPEND depends ${${language}_file})
      list(APPEND files ${ARG_${language}})
    endif()
  endforeach()

  # Every program of a directory writes duet_kernels/<name>.cpp there: one name, one set of files.
  # Targets that embed the same files under one name (benchmarks/) share those outputs.
  string(REPLACE ";" ", " files_text "${files}")
  string(REPLACE ";" "|" program "${ARG_NAME}=${depends}")
  get_directory_property(embedded DUET_EMBEDDED_PROGRAMS)
  foreach(earlier IN LISTS embedded)
    if(earlier MATCHES "^${ARG_NAME}=(.*)$" AND NOT earlier STREQUAL program)
      string(REPLACE "|" ", " earlier_files "${CMAKE_MATCH_1}")
      message(FATAL_ERROR "${call}: NAME ${ARG_NAME} is taken in this directory by ${earlier_files}; "
                          "embed ${files_text} under another name")
    endif()
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY DUET_EMBEDDED_PROGRAMS "${program}")

  if(ARG_OPENCL)
    list(APPEND images "opencl_c=${OPENCL_file}")
    # Once a program and file, however many targets embed it.
    set(entry "${ARG_NAME}=${OPENCL_file}")
    get_property(recorded GLOBAL PROPERTY DUET_OPENCL_KERNELS)
    if(NOT entry IN_LIST recorded)
      set_property(GLOBAL APPEND PROPERTY DUET_OPENCL_KERNELS "${entry}")
    endif()
  endif()

  if(ARG_CUDA)
    # The source too, for NVRTC: builds with -D defines, and GPUs when no nvcc was at hand.
    list(APPEND images "cuda_c=${CUDA_file}")
    # Listed for the test that compiles every embedded CUDA source through NVRTC.
    set_property(GLOBAL APPEND PROPERTY DUET_EMBEDDED_CUDA_SOURCES ${CUDA_file})
  endif()
  if(ARG_CUDA AND DUET_NVCC)
    set(fatbin ${out_dir}/${ARG_NAME}.fatbin)
    set(architectures ${CMAKE_CUDA_ARCHITECTURES})
    if(NOT architectures)
      set(architectures 80 90)
    endif()
    set(gencode "")
    set(virtual_architectures "")
    foreach(arch IN LISTS architectures)
      string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
      list(APPEND gencode "-gencode=arch=compute_${arch},code=sm_${arch}")
      list(APPEND virtual_architectures ${arch})
      set(newest ${arch})
    endforeach()
    list(REMOVE_DUPLICATES virtual_architectures)
    list(LENGTH virtual_architectures virtual_count)
    list(APPEND gencode "-gencode=arch=compute_${newest},code=compute_${newest}")
    set(fatbin_options -fatbin -std=c++17 -O3 ${gencode})
    # nvcc keeps what it made on the way (--keep): the newest architecture's PTX, the one the fatbin
    # carries, is shipped too, to be read (Program::assembly), without compiling the source twice.
    set(keep_dir ${out_dir}/${ARG_NAME}.nvcc)
    file(MAKE_DIRECTORY ${keep_dir})
    get_filename_component(cuda_stem ${CUDA_file} NAME_WLE)
    # nvcc names the PTX by its virtual architecture only where it makes more than one.
    if(virtual_count EQUAL 1)
      set(ptx ${keep_dir}/${cuda_stem}.ptx)
    else()
      set(ptx ${keep_dir}/${cuda_stem}.compute_${newest}.ptx)
    endif()
    add_custom_command(
      OUTPUT ${fatbin} ${ptx}
      COMMAND ${DUET_NVCC} ${fatbin_options} --keep --keep-dir ${keep_dir} -o ${fatbin} ${CUDA_file}
      DEPENDS ${CUDA_file}
      COMMENT "nvcc: ${ARG_CUDA} -> ${ARG_NAME}.fatbin (sm ${architectures} + PTX)"
      VERBATIM)
    list(APPEND images "fatbin=${fatbin}" "ptx=${ptx}")
    list(APPEND depends ${fatbin} ${ptx})
  endif()

  set(source ${out_dir}/${ARG_NAME}.cpp)
  set(header ${out_dir}/duet_kernels/${ARG_NAME}.hpp)
  string(REPLACE ";" "|" images_arg "${images}")
  # nvcc's options, shipped with what it made (Program::build_options).
  string(REPLACE ";" " " nvcc_options_text "${fatbin_options}")
  add_custom_command(
    OUTPUT ${source} ${header}
    COMMAND ${CMAKE_COMMAND} -DNAME=${ARG_NAME} "-DIMAGES=${images_arg}" -DSOURCE=${source} -DHEADER=${header}
            "-DNVCC_OPTIONS=${nvcc_options_text}"
            -P ${DUET_EMBED_SCRIPT}
    DEPENDS ${depends} ${DUET_EMBED_SCRIPT}
    COMMENT "duet: embedding ${files_text} as duet::kernels::${ARG_NAME}()"
    VERBATIM)
  target_sources(${target} PRIVATE ${source})
  # PRIVATE: the header is the target's own business (an installed library's kernels).
  if(ARG_PRIVATE)
    target_include_directories(${target} PRIVATE ${out_dir})
  else()
    target_include_directories(${target} PUBLIC ${out_dir})
  endif()
endfunction()
