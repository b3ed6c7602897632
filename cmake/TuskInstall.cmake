# `cmake --install build --prefix P` installs tusk as a package (docs/scripting.md):
#   P/bin/tusk                          the command line
#   P/lib/libtusk-*.so                  the libraries (RPATH $ORIGIN: they find each other)
#   P/include/tusk/...                  tusk's headers in their folders (api/ run/ scenario/
#                                       ...), the ns-3 modules' (fabric/ rdma/ workload/
#                                       importers/) and the policies' (lb-policies/), each at
#                                       its path in the source tree
#   P/lib/cmake/tusk/tuskConfig.cmake   find_package(tusk) -> imported targets tusk::tusk (all
#                                       of tusk: the scripting API, the models, the policies)
#                                       and tusk::fabric, tusk::rdma, ... one per library
# ns-3 itself is not copied: it is Debian's libns3-dev, found by tuskConfig.cmake like the
# other dependencies (a second copy of libns3-core in one process would register every TypeId
# twice).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TUSK_INSTALLED_LIBS tusk-fabric tusk-rdma tusk-workload tusk-importers tusk-lb-policies tusk-locate tusk-app)
foreach(lib ${TUSK_INSTALLED_LIBS})
  string(REGEX REPLACE "^tusk-" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short} INSTALL_RPATH "$ORIGIN")
endforeach()
set_target_properties(tusk PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

# tusk::tusk: everything a scenario program or an out-of-tree policy links.
add_library(tusk-package INTERFACE)
target_link_libraries(tusk-package INTERFACE tusk-app)
set_target_properties(tusk-package PROPERTIES EXPORT_NAME tusk)
add_library(tusk::tusk ALIAS tusk-package)

install(TARGETS ${TUSK_INSTALLED_LIBS} tusk-package EXPORT tuskTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tusk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/ns3-modules/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tusk
  FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lb-policies/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tusk/lb-policies FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tusk/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tusk
  FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/tusk/tusk-version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tusk)

set(TUSK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tusk)
install(EXPORT tuskTargets NAMESPACE tusk:: DESTINATION ${TUSK_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tuskConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tuskConfig.cmake INSTALL_DESTINATION ${TUSK_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tuskConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tuskConfig.cmake ${PROJECT_BINARY_DIR}/tuskConfigVersion.cmake
  DESTINATION ${TUSK_CMAKE_DIR})
