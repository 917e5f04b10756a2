// 1D moving average over radius R: out[i] = (in[i-R] + ... + in[i+R]) / (2R+1), with the first and
// last R elements copied through unchanged. The same entry points as stencil1d.cu; both sum
// left to right and divide, as the CPU reference does, so only the division's rounding differs.

// Outputs per work-item of the shared kernel; the launcher's items_per_thread must equal it.
#define STENCIL1D_ITEMS 8

// Every work-item reads its 2R+1 inputs from global memory: the baseline the tiled kernel beats.
__kernel void stencil1d_naive(__global const float* restrict in, __global float* restrict out, const uint n,
                              const uint radius)
{
    const uint i = get_global_id(0);
    if (i >= n) {
        return;
    }
    // n - i <= radius rather than i >= n - radius: no wrap-around when n < radius.
    if (i < radius || n - i <= radius) {
        out[i] = in[i];
        return;
    }
    float sum = in[i - radius];
    for (uint j = i - radius + 1; j <= i + radius; ++j) {
        sum += in[j];
    }
    out[i] = sum / (float)(2 * radius + 1);
}

// The mean of window[0 .. 2R], summed left to right.
float window_mean(__local const float* window, const uint radius)
{
    float sum = window[0];
    for (uint t = 1; t <= 2 * radius; ++t) {
        sum += window[t];
    }
    return sum / (float)(2 * radius + 1);
}

// A block's outputs from its tile. Called with a literal radius for the common radii, so that
// once inlined the window is unrolled: a loop over R would cost more instructions per output
// than the memory system leaves time for.
void write_means(__global float* restrict out, __local const float* tile, const uint first, const uint n,
                 const uint radius, const bool interior)
{
    const uint lid = get_local_id(0);
    const uint block = get_local_size(0);
    if (interior) {
        for (uint k = 0; k < STENCIL1D_ITEMS; ++k) {
            const uint j = lid + k * block;
            out[first + j] = window_mean(tile + j, radius);
        }
        return;
    }
    for (uint k = 0; k < STENCIL1D_ITEMS; ++k) {
        const uint j = lid + k * block;
        const uint i = first + j;
        if (i < n) {
            out[i] = i < radius || n - i <= radius ? tile[radius + j] : window_mean(tile + j, radius);
        }
    }
}

// Each work-group produces STENCIL1D_ITEMS × local size consecutive outputs from a tile holding
// those inputs plus R halo elements on each side: tile[m] = in[first - R + m]. Inputs are read
// from global memory once, in coalesced rows; the 2R+1 reads per output hit local memory.
// Tile positions outside [0, n) are never loaded from `in`, and no output reads them: the
// outputs that would need them are the copied-through ends.
__kernel void stencil1d_shared(__global const float* restrict in, __global float* restrict out, __local float* tile,
                               const uint n, const uint radius)
{
    const uint lid = get_local_id(0);
    const uint block = get_local_size(0);
    const uint span = STENCIL1D_ITEMS * block;
    const uint first = get_group_id(0) * span;
    // Every block but the first and the last: no output copied through, every input in range.
    const bool interior = first >= radius && first + span + radius <= n;

    // All loads into registers before the first store, so that each work-item has
    // STENCIL1D_ITEMS reads in flight. Positions past n get a value no output reads.
    float centre[STENCIL1D_ITEMS];
    if (interior) {
#pragma unroll
        for (uint k = 0; k < STENCIL1D_ITEMS; ++k) {
            centre[k] = in[first + lid + k * block];
        }
    } else {
#pragma unroll
        for (uint k = 0; k < STENCIL1D_ITEMS; ++k) {
            centre[k] = first + lid + k * block < n ? in[first + lid + k * block] : 0.0f;
        }
    }
#pragma unroll
    for (uint k = 0; k < STENCIL1D_ITEMS; ++k) {
        tile[radius + lid + k * block] = centre[k];
    }
    // The halo: h < R left of the span, the others right of it; R may exceed the block.
    for (uint h = lid; h < 2 * radius; h += block) {
        const uint m = h < radius ? h : span + h;
        if (first + m >= radius && first + m - radius < n) {
            tile[m] = in[first + m - radius];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // The radius is the same for the whole launch: every work-item takes the same case.
    switch (radius) {
    case 1:
        write_means(out, tile, first, n, 1, interior);
        break;
    case 2:
        write_means(out, tile, first, n, 2, interior);
        break;
    case 3:
        write_means(out, tile, first, n, 3, interior);
        break;
    case 4:
        write_means(out, tile, first, n, 4, interior);
        break;
    case 5:
        write_means(out, tile, first, n, 5, interior);
        break;
    case 6:
        write_means(out, tile, first, n, 6, interior);
        break;
    case 7:
        write_means(out, tile, first, n, 7, interior);
        break;
    case 8:
        write_means(out, tile, first, n, 8, interior);
        break;
    default:
        write_means(out, tile, first, n, radius, interior);
        break;
    }
}
