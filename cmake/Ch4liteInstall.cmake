# SPDX-License-Identifier: MIT
# cmake --install lays out bin/ include/ lib/ (+ pkg-config and CMake package files).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS mpi EXPORT ch4liteTargets LIBRARY DESTINATION lib)
install(CODE "execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink libmpi.so.1
  \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/libmpi_abi.so.1)
  execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink libmpi_abi.so.1
  \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/libmpi_abi.so)")
# mpi.h, its prototype chapters (mpi_proto*.h) and their PMPI_ mirrors.
file(GLOB _ch4lite_api_headers ${PROJECT_SOURCE_DIR}/include/mpi_proto*.h
  ${PROJECT_SOURCE_DIR}/include/mpi_pmpi*.h)
install(FILES ${PROJECT_SOURCE_DIR}/include/mpi.h ${_ch4lite_api_headers} DESTINATION include)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install-wrappers/mpicc
  ${CMAKE_BINARY_DIR}/install-wrappers/mpicxx DESTINATION bin)
if(TARGET mpiexec)
  install(TARGETS mpiexec RUNTIME DESTINATION bin)
endif()
# Man pages (docs/man/man1): `man -M <prefix>/share/man mpiexec`, or plain
# `man mpiexec` with <prefix>/bin on PATH (man-db looks in ../share/man).
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/man1/mpiexec.1 ${PROJECT_SOURCE_DIR}/docs/man/man1/mpicc.1
  ${PROJECT_SOURCE_DIR}/docs/man/man1/mpicxx.1 DESTINATION share/man/man1)
set_target_properties(mpi PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
  "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>$<INSTALL_INTERFACE:include>")
install(EXPORT ch4liteTargets NAMESPACE ch4lite:: DESTINATION lib/cmake/ch4lite)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ch4liteConfig.cmake.in
  ${CMAKE_BINARY_DIR}/ch4liteConfig.cmake INSTALL_DESTINATION lib/cmake/ch4lite)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ch4liteConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ch4liteConfig.cmake
  ${CMAKE_BINARY_DIR}/ch4liteConfigVersion.cmake DESTINATION lib/cmake/ch4lite)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ch4lite.pc.in ${CMAKE_BINARY_DIR}/ch4lite.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/ch4lite.pc DESTINATION lib/pkgconfig)
