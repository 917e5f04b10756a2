// out = inᵀ through a TILE × (TILE + 1) shared-memory tile: reads and writes both coalesced, the
// extra column keeps the tile's columns off one bank. Blocks are TILE × ROWS threads, each
// thread moving TILE / ROWS elements.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y0 = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < cols && y0 + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y0 + j) * cols + x];
        }
    }
    __syncthreads();
    const int tx = blockIdx.y * TILE + threadIdx.x;
    const int ty0 = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        if (tx < rows && ty0 + j < cols) {
            out[(size_t)(ty0 + j) * rows + tx] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

// The reference: one thread per element, no tile.
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) {
        out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
    }
}
