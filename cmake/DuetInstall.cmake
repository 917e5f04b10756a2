# What `cmake --install` puts where: the libraries and public headers, the CLI, and the CMake
# package find_package(duet CONFIG) reads (duet::core, duet::workload, duet::manifest,
# duet_embed_kernels(), duet_add_workload()). Backends and workloads install themselves (duet_add_backend,
# duet_add_workload) to duet/ and duet/workloads beside libduet_core.so, where the installed
# libraries look. Run paths are $ORIGIN-based, so the installed tree can be moved as a whole.
include(CMakePackageConfigHelpers)

set(DUET_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/duet)
file(RELATIVE_PATH bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})

set_target_properties(duet_core PROPERTIES EXPORT_NAME core)
set_target_properties(duet_workload PROPERTIES EXPORT_NAME workload INSTALL_RPATH "$ORIGIN")
set_target_properties(duet_manifest PROPERTIES EXPORT_NAME manifest INSTALL_RPATH "$ORIGIN")
set_target_properties(duet PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")

install(TARGETS duet_core duet_workload duet_manifest duet_warnings EXPORT duetTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS duet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The CLI's runs under mpirun (built where MPI is found): beside the other libraries, for the CLI
# alone; not part of the package's API.
if(TARGET duet_distributed)
  set_target_properties(duet_distributed PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS duet_distributed LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# detail/plugins.hpp stays out: only duet's own library sources include it, and it would make
# every user of the package find Boost.DLL.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ ${PROJECT_SOURCE_DIR}/workload/include/
  ${PROJECT_SOURCE_DIR}/manifest/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  REGEX "/detail/plugins\\.hpp$" EXCLUDE)

install(EXPORT duetTargets NAMESPACE duet:: DESTINATION ${DUET_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/duetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/duetConfig.cmake
  INSTALL_DESTINATION ${DUET_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the workload ABI (DUET_WORKLOAD_ABI_VERSION).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/duetConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/duetConfig.cmake
  ${PROJECT_BINARY_DIR}/package/duetConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/DuetKernels.cmake
  ${CMAKE_CURRENT_LIST_DIR}/embed_program.cmake
  ${CMAKE_CURRENT_LIST_DIR}/DuetWorkload.cmake
  DESTINATION ${DUET_INSTALL_CMAKEDIR})
