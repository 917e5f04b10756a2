#!/usr/bin/env bash
# duet as a user's own project meets it: installs this build into a fresh prefix (then moved, so
# nothing installed may point at where it was put), builds examples/heat2d against that prefix
# with find_package(duet), and runs the installed CLI on the result. Any step failing fails the test.
# Arguments: cmake, the build tree, examples/heat2d, a scratch folder, the generator, the C++ compiler.
set -euo pipefail
cmake=$1 build=$2 example=$3 work=$4 generator=$5 compiler=$6

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/staged" >"$work/install.log"
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
duet=$prefix/bin/duet

"$cmake" -S "$example" -B "$work/heat2d" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$compiler"
"$cmake" --build "$work/heat2d"

# The installed CLI runs on the installed libraries, found through its $ORIGIN-based run path.
ldd "$duet" | grep -E 'libduet_(core|workload|manifest)'
if ldd "$duet" | grep -E 'libduet_(core|workload|manifest)' | grep -vq "=> $prefix/"; then
  echo "package: $duet does not load duet's libraries from $prefix" >&2
  exit 1
fi

export DUET_PLUGIN_PATH=$work/heat2d
"$duet" list | tee "$work/list.txt"
grep -q '^heat2d: ' "$work/list.txt" || { echo "package: duet list does not show heat2d" >&2; exit 1; }
"$duet" compare heat2d 2>&1 | tee "$work/compare.txt"
grep -q 'All agree' "$work/compare.txt" || { echo "package: duet compare heat2d: no 'All agree'" >&2; exit 1; }
# The declared cases (tiny, odd, not a multiple of the block), so that the kernels' guards are run.
"$duet" test heat2d
echo "package: heat2d built against $prefix and agreed"
