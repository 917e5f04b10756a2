// One explicit step of 2D heat diffusion on a width × height grid, one thread per point:
// u_new = u + alpha * (up + down + left + right - 4u) inside, the boundary copied through. The
// same entry point as heat2d.cl (extern "C": an unmangled name); threads past the grid do nothing.
extern "C" __global__ void heat2d(const float* u, float* u_new, unsigned int width, unsigned int height, float alpha)
{
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    const unsigned int i = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        u_new[i] = u[i];
    } else {
        u_new[i] = u[i] + alpha * (u[i - width] + u[i + width] + u[i - 1] + u[i + 1] - 4.0f * u[i]);
    }
}
