#!/usr/bin/env bash
# Configures and builds tests/embed (CASE two_names) and checks that the build's messages name the
# files that exist: naive/step.cu -> step_naive.fatbin, never a step_naive.cu.
# Arguments: cmake, tests/embed, a scratch folder, the generator, the C++ compiler, duet's cmake/,
# duet's core/include.
set -euo pipefail
cmake=$1 fixture=$2 work=$3 generator=$4 compiler=$5 cmake_dir=$6 include_dir=$7

rm -rf "$work"
"$cmake" -S "$fixture" -B "$work" -G "$generator" -DCMAKE_CXX_COMPILER="$compiler" -DCASE=two_names \
  -DDUET_CMAKE_DIR="$cmake_dir" -DDUET_INCLUDE_DIR="$include_dir" -DDUET_NVCC="$fixture/fake_nvcc.sh"
"$cmake" --build "$work" 2>&1 | tee "$work/build.log"

expect() {
  grep -qF -- "$1" "$work/build.log" || { echo "two_names: the build did not say '$1'" >&2; exit 1; }
}
expect "nvcc: naive/step.cu -> step_naive.fatbin"
expect "nvcc: pyramid/step.cu -> step_pyramid.fatbin"
expect "duet: embedding naive/step.cl, naive/step.cu as duet::kernels::step_naive()"
expect "duet: embedding pyramid/step.cl, pyramid/step.cu as duet::kernels::step_pyramid()"
if grep -E 'step_(naive|pyramid)\.(cl|cu)' "$work/build.log"; then
  echo "two_names: the build names a file that does not exist" >&2
  exit 1
fi
for name in step_naive step_pyramid; do
  header=$work/duet_kernels/duet_kernels/$name.hpp
  grep -q "const ProgramSource& $name();" "$header" || { echo "two_names: $header declares no $name()" >&2; exit 1; }
done
echo "two_names: both programs embedded under their own names"
