#!/usr/bin/env bash
# Stands in for nvcc in the two_names case, so that the fatbin rule and its message are built on
# machines without the CUDA toolkit: copies the .cu (the last argument) to the -o file.
set -euo pipefail
out=
while [ $# -gt 1 ]; do
  if [ "$1" = -o ]; then out=$2; shift; fi
  shift
done
cp "$1" "$out"
