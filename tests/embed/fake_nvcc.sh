#!/usr/bin/env bash
# Stands in for nvcc in the two_names case, so that the fatbin rule and its message are built on
# machines without the CUDA toolkit: copies the .cu (the last argument) to the -o file, and, as
# nvcc's --keep does, to <keep-dir>/<stem>.compute_<N>.ptx for the PTX (code=compute_<N>) it embeds.
set -euo pipefail
out= keep_dir= ptx_arch=
while [ $# -gt 1 ]; do
  case $1 in
    -o) out=$2; shift ;;
    --keep-dir) keep_dir=$2; shift ;;
    -gencode=*code=compute_*) ptx_arch=${1##*code=compute_} ;;
  esac
  shift
done
cp "$1" "$out"
if [ -n "$keep_dir" ] && [ -n "$ptx_arch" ]; then
  stem=$(basename "$1")
  cp "$1" "$keep_dir/${stem%.*}.compute_$ptx_arch.ptx"
fi
