#!/usr/bin/env bash
# An outside project against the installed package (docs/scripting.md): install this build
# into a scratch prefix, configure and build scenarios/scripts/own-policy (one .cc file with a
# switch policy of its own) with find_package(tusk) from that prefix alone, run it: the policy
# registered in that file runs by name in a scenario. Usage: out-of-tree-test.sh SRC BUILD
set -euo pipefail
src=$1
build=$2
scratch=$build/test-scratch/out-of-tree
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix
# [install]
cmake --install "$build" --prefix "$prefix"
# [/install]
test -f "$prefix/lib/cmake/tusk/tuskConfig.cmake"
test -f "$prefix/include/tusk/scripting.h"
if command -v ccache >/dev/null 2>&1; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
export CMAKE_GENERATOR=Ninja
cp "$src/scenarios/scripts/own-policy/"{CMakeLists.txt,own-policy.cc} "$scratch/"
cd "$scratch"
{
# [build]
cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
./build/own-policy
# [/build]
} | tee run.log
# The package came from the scratch prefix (nothing else would make this test meaningful), and
# the policy of own-policy.cc ran by its name.
grep -qx "tusk_DIR:PATH=$prefix/lib/cmake/tusk" build/CMakeCache.txt
grep -q "^min-queue " run.log
