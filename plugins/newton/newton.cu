// The eight kernels of the continuous analogue of Newton's method, in double: Matrix_A, AX, PHI
// and D_PHI once per outer iteration, Solve_L and Eps_L once per inner (Jacobi) iteration,
// Solve_G and Eps_G once per outer iteration; the original CUDA program's argument order, with
// n and nd = (int)(0.15 n) passed by the launcher. The same entry points as newton.cl (extern "C"
// keeps them unmangled).
//
// Band matrices are stored by diagonals, i fastest: element (i, j), |i - j| <= nd, at
// band[d * n + i] with d = j - i + nd. The original's transposed storage dA[i + j*N] kept to the
// 2nd + 1 diagonals: a warp's threads (consecutive rows i) read consecutive addresses of each
// diagonal, and of x or v shifted by d - nd. Positions whose column falls outside [0, n) hold 0
// and no product reads them. Every kernel guards its index: n need not be a multiple of the block.
// Indices are 32-bit: the launcher keeps (2nd + 1) * n below 2^32.

// The diagonals of row i whose column i + d - nd lies in [0, n): first_diagonal <= d < end_diagonal.
__device__ __forceinline__ unsigned int first_diagonal(unsigned int i, unsigned int nd)
{
    return i < nd ? nd - i : 0;
}
__device__ __forceinline__ unsigned int end_diagonal(unsigned int i, unsigned int n, unsigned int nd)
{
    return min(2 * nd + 1, n - i + nd);
}

// Row i of M v for a band matrix M: its terms left to right. AX and Solve_L.
__device__ __forceinline__ double row_product(const double* __restrict__ m, const double* __restrict__ v,
                                              unsigned int i, unsigned int n, unsigned int nd)
{
    const unsigned int end = end_diagonal(i, n, nd);
    double sum = 0.0;
    for (unsigned int d = first_diagonal(i, nd); d < end; ++d) {
        sum += m[d * n + i] * v[i + d - nd];
    }
    return sum;
}

// a(i, j) = sin²(x_i) cos²(x_j) + n δ_ij on the band, one thread per element: x over rows, y over
// diagonals.
extern "C" __global__ void newton_matrix_a(double* __restrict__ a, const double* __restrict__ x, unsigned int n,
                                           unsigned int nd)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int d = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || d > 2 * nd) {
        return;
    }
    double value = 0.0;
    if (d >= first_diagonal(i, nd) && d < end_diagonal(i, n, nd)) {
        const double s = sin(x[i]);
        const double c = cos(x[i + d - nd]);
        value = (s * s) * (c * c) + (d == nd ? (double)n : 0.0);
    }
    a[d * n + i] = value;
}

// ax = A x, one thread per row, the band's terms left to right.
extern "C" __global__ void newton_ax(double* __restrict__ ax, const double* __restrict__ a,
                                     const double* __restrict__ x, unsigned int n, unsigned int nd)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ax[i] = row_product(a, x, i, n, nd);
    }
}

// phi = A(x) x - f.
extern "C" __global__ void newton_phi(double* __restrict__ phi, const double* __restrict__ ax,
                                      const double* __restrict__ f, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        phi[i] = ax[i] - f[i];
    }
}

// The Fréchet derivative of A(x) x on the band:
//   l(i, j) = a(i, j) - sin²(x_i) sin(2 x_j) x_j + δ_ij sin(2 x_i) S_i,  S_i = Σ_{|k-i| <= nd} cos²(x_k) x_k,
// from ∂a_ik/∂x_j = sin(2x_i) cos²(x_k) δ_ij - sin(2x_k) sin²(x_i) δ_kj. The two nonzero terms
// are written out: the original summed all 2nd + 1 k for every element. The diagonal's threads sum
// S_i over the row's band.
extern "C" __global__ void newton_d_phi(double* __restrict__ l, const double* __restrict__ x, unsigned int n,
                                        unsigned int nd)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int d = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || d > 2 * nd) {
        return;
    }
    const unsigned int first = first_diagonal(i, nd);
    const unsigned int end = end_diagonal(i, n, nd);
    double value = 0.0;
    if (d >= first && d < end) {
        const unsigned int j = i + d - nd;
        const double s = sin(x[i]);
        const double c = cos(x[j]);
        value = (s * s) * (c * c) - (s * s) * (sin(2.0 * x[j]) * x[j]);
        if (d == nd) {
            double sum = 0.0;
            for (unsigned int e = first; e < end; ++e) {
                const double ck = cos(x[i + e - nd]);
                sum += (ck * ck) * x[i + e - nd];
            }
            value += (double)n + sin(2.0 * x[i]) * sum;
        }
    }
    l[d * n + i] = value;
}

// One Jacobi step for L v = -phi: v1_i = v0_i + (-phi_i - Σ_j l_ij v0_j) / l_ii.
extern "C" __global__ void newton_solve_l(const double* __restrict__ l, const double* __restrict__ phi,
                                          const double* __restrict__ v0, double* __restrict__ v1, unsigned int n,
                                          unsigned int nd)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v1[i] = v0[i] + (-phi[i] - row_product(l, v0, i, n, nd)) / l[nd * n + i];
    }
}

// delta_i = |v1_i - v0_i|, then v0 = v1: the inner check's terms, and the next step's start.
extern "C" __global__ void newton_eps_l(double* __restrict__ v0, const double* __restrict__ v1,
                                        double* __restrict__ delta, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        delta[i] = fabs(v1[i] - v0[i]);
        v0[i] = v1[i];
    }
}

// x1 = x0 + tau v: one step of the continuous analogue, t advanced by tau.
extern "C" __global__ void newton_solve_g(const double* __restrict__ x0, double* __restrict__ x1,
                                          const double* __restrict__ v, double tau, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x1[i] = x0[i] + tau * v[i];
    }
}

// delta_i = |x1_i - x0_i|, then x0 = x1: the outer check's terms, and the next iteration's x.
extern "C" __global__ void newton_eps_g(double* __restrict__ x0, const double* __restrict__ x1,
                                        double* __restrict__ delta, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        delta[i] = fabs(x1[i] - x0[i]);
        x0[i] = x1[i];
    }
}
