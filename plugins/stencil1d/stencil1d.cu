// 1D moving average over radius R: out[i] = (in[i-R] + ... + in[i+R]) / (2R+1), with the first and
// last R elements copied through unchanged. The same entry points as stencil1d.cl (extern "C"
// keeps them unmangled); both sum left to right and divide, as the CPU reference does.

// Outputs per thread of the shared kernel; the launcher's items_per_thread must equal it.
#define STENCIL1D_ITEMS 8

// Every thread reads its 2R+1 inputs from global memory: the baseline the tiled kernel beats.
extern "C" __global__ void stencil1d_naive(const float* __restrict__ in, float* __restrict__ out, unsigned int n,
                                           unsigned int radius)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    // n - i <= radius rather than i >= n - radius: no wrap-around when n < radius.
    if (i < radius || n - i <= radius) {
        out[i] = in[i];
        return;
    }
    float sum = in[i - radius];
    for (unsigned int j = i - radius + 1; j <= i + radius; ++j) {
        sum += in[j];
    }
    out[i] = sum / static_cast<float>(2 * radius + 1);
}

// The mean of window[0 .. 2R], summed left to right.
__device__ __forceinline__ float window_mean(const float* window, unsigned int radius)
{
    float sum = window[0];
    for (unsigned int t = 1; t <= 2 * radius; ++t) {
        sum += window[t];
    }
    return sum / static_cast<float>(2 * radius + 1);
}

// A block's outputs from its tile. Called with a literal radius for the common radii, so that
// once inlined the window is unrolled: a loop over R would cost more instructions per output
// than the memory system leaves time for.
__device__ __forceinline__ void write_means(float* __restrict__ out, const float* tile, unsigned int first,
                                            unsigned int n, unsigned int radius, bool interior)
{
    const unsigned int lid = threadIdx.x;
    const unsigned int block = blockDim.x;
    if (interior) {
        for (unsigned int k = 0; k < STENCIL1D_ITEMS; ++k) {
            const unsigned int j = lid + k * block;
            out[first + j] = window_mean(tile + j, radius);
        }
        return;
    }
    for (unsigned int k = 0; k < STENCIL1D_ITEMS; ++k) {
        const unsigned int j = lid + k * block;
        const unsigned int i = first + j;
        if (i < n) {
            out[i] = i < radius || n - i <= radius ? tile[radius + j] : window_mean(tile + j, radius);
        }
    }
}

// Each block produces STENCIL1D_ITEMS × blockDim.x consecutive outputs from a tile in dynamic
// shared memory holding those inputs plus R halo elements on each side: tile[m] = in[first - R + m].
// Inputs are read from global memory once, in coalesced rows; the 2R+1 reads per output hit shared
// memory. Tile positions outside [0, n) are never loaded from `in`, and no output reads them:
// the outputs that would need them are the copied-through ends.
extern "C" __global__ void stencil1d_shared(const float* __restrict__ in, float* __restrict__ out, unsigned int n,
                                            unsigned int radius)
{
    extern __shared__ float tile[];
    const unsigned int lid = threadIdx.x;
    const unsigned int block = blockDim.x;
    const unsigned int span = STENCIL1D_ITEMS * block;
    const unsigned int first = blockIdx.x * span;
    // Every block but the first and the last: no output copied through, every input in range.
    const bool interior = first >= radius && first + span + radius <= n;

    // All loads into registers before the first store, so that each thread has STENCIL1D_ITEMS
    // reads in flight. Positions past n get a value no output reads.
    float centre[STENCIL1D_ITEMS];
    if (interior) {
#pragma unroll
        for (unsigned int k = 0; k < STENCIL1D_ITEMS; ++k) {
            centre[k] = in[first + lid + k * block];
        }
    } else {
#pragma unroll
        for (unsigned int k = 0; k < STENCIL1D_ITEMS; ++k) {
            centre[k] = first + lid + k * block < n ? in[first + lid + k * block] : 0.0f;
        }
    }
#pragma unroll
    for (unsigned int k = 0; k < STENCIL1D_ITEMS; ++k) {
        tile[radius + lid + k * block] = centre[k];
    }
    // The halo: h < R left of the span, the others right of it; R may exceed the block.
    for (unsigned int h = lid; h < 2 * radius; h += block) {
        const unsigned int m = h < radius ? h : span + h;
        if (first + m >= radius && first + m - radius < n) {
            tile[m] = in[first + m - radius];
        }
    }
    __syncthreads();

    // The radius is the same for the whole launch: every thread takes the same case.
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
