// One explicit step of 2D heat diffusion on a width × height grid, one work-item per point:
// u_new = u + alpha * (up + down + left + right - 4u) inside, the boundary copied through. The
// same entry point as heat2d.cu; work-items past the grid (the last blocks' tail) do nothing.
__kernel void heat2d(__global const float* u, __global float* u_new, const uint width, const uint height,
                     const float alpha)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    const uint i = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        u_new[i] = u[i];
    } else {
        u_new[i] = u[i] + alpha * (u[i - width] + u[i + width] + u[i - 1] + u[i + 1] - 4.0f * u[i]);
    }
}
