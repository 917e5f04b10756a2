#!/bin/sh
# Writes the PTX files of this folder again: nvcc -ptx for sm_90 from the repository's kernels and
# from mix_kernels.cu, each kept to the kernels the tests read (the module's header, its .global
# data, the named .entry bodies and every .func, as nvcc wrote them). Run from this folder.
set -e
root=../../../..
keep() { # keep <ptx in> <ptx out> <entry>...: drops the other .entry bodies
    in=$1 out=$2
    shift 2
    awk -v keep=" $* " '
        /^\t\/\/ \.globl/ { next }
        /^\.visible \.entry|^\.entry/ { name = $NF; sub(/\(.*/, "", name); skip = index(keep, " " name " ") == 0 }
        !skip { print }
        skip && /^}/ { skip = 0 }' "$in" >"$out"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -ptx -arch=sm_90 $root/plugins/vector_add/vector_add.cu -o vector_add.ptx
nvcc -ptx -arch=sm_90 $root/plugins/stencil1d/stencil1d.cu -o "$tmp/stencil1d.ptx"
keep "$tmp/stencil1d.ptx" stencil1d_naive.ptx stencil1d_naive
nvcc -ptx -arch=sm_90 $root/plugins/matmul/matmul.cu -o "$tmp/matmul.ptx"
keep "$tmp/matmul.ptx" matmul_tiled16.ptx matmul_tiled16
nvcc -ptx -arch=sm_90 $root/plugins/newton/newton.cu -o "$tmp/newton.ptx"
keep "$tmp/newton.ptx" newton_matrix_a.ptx newton_matrix_a
nvcc -ptx -arch=sm_90 mix_kernels.cu -o mix.ptx
nvcc -ptx -arch=sm_90 --fmad=false mix_kernels.cu -o "$tmp/mix.ptx"
keep "$tmp/mix.ptx" mix_fmad_false.ptx axpb
nvcc -ptx -arch=sm_90 -prec-div=false -prec-sqrt=false mix_kernels.cu -o "$tmp/mix.ptx"
keep "$tmp/mix.ptx" mix_prec_false.ptx quotient
nvcc -ptx -arch=sm_90 -use_fast_math mix_kernels.cu -o "$tmp/mix.ptx"
keep "$tmp/mix.ptx" mix_fast_math.ptx wave quotient
