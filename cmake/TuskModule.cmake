# tusk_add_module(NAME SOURCES <files...> [DEPS <tusk modules>] [LIBS <imported targets>])
#
# Builds one of our ns-3 modules (ns-3's own build_lib is not installed by Debian's
# libns3-dev) as a shared library `tusk-<NAME>`, the way ns-3 builds its src/<module>:
# a shared library keeps NS_OBJECT_ENSURE_REGISTERED's static initialisers, so every
# TypeId is registered and reachable by name from a scenario file.
function(tusk_add_module NAME)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  set(target tusk-${NAME})
  add_library(${target} SHARED ${M_SOURCES})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/ns3-modules>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    # tusk's own headers by their path inside tusk/: #include "run/runner.h".
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/tusk>
    # Installed (cmake/TuskInstall.cmake): <prefix>/include/tusk holds fabric/ rdma/
    # workload/ importers/ lb-policies/ and tusk's own folders (api/ run/ scenario/ ...);
    # <prefix>/include lets a program write #include <tusk/api/scripting.h>.
    $<INSTALL_INTERFACE:include> $<INSTALL_INTERFACE:include/tusk>)
  target_link_libraries(${target} PUBLIC ${M_DEPS} ${M_LIBS})
  tusk_set_defines(${target})
endfunction()

# The imported ns-3 targets carry no compile definitions: enable NS_LOG (compiled out of
# hot loops by the code itself) and, in Debug builds, NS_ASSERT.
function(tusk_set_defines target)
  target_compile_definitions(${target} PUBLIC NS3_LOG_ENABLE
    $<$<CONFIG:Debug>:NS3_ASSERT_ENABLE>)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
