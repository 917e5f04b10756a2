// The eight kernels of the continuous analogue of Newton's method, in double: Matrix_A, AX, PHI
// and D_PHI once per outer iteration, Solve_L and Eps_L once per inner (Jacobi) iteration,
// Solve_G and Eps_G once per outer iteration; the original CUDA program's argument order, with
// n and nd = (int)(0.15 n) passed by the launcher. The same entry points as newton.cu. Built only
// where the device has cl_khr_fp64: elsewhere the program holds no kernel, and the launcher
// refuses the device naming the extension.
//
// Band matrices are stored by diagonals, i fastest: element (i, j), |i - j| <= nd, at
// band[d * n + i] with d = j - i + nd. The original's transposed storage dA[i + j*N] kept to the
// 2nd + 1 diagonals: a sub-group's work-items (consecutive rows i) read consecutive addresses of
// each diagonal, and of x or v shifted by d - nd. Positions whose column falls outside [0, n) hold
// 0 and no product reads them. Every kernel guards its index: n need not be a multiple of the
// work-group. Indices are 32-bit: the launcher keeps (2nd + 1) * n below 2^32.

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// The diagonals of row i whose column i + d - nd lies in [0, n): first_diagonal <= d < end_diagonal.
uint first_diagonal(const uint i, const uint nd)
{
    return i < nd ? nd - i : 0;
}
uint end_diagonal(const uint i, const uint n, const uint nd)
{
    return min(2 * nd + 1, n - i + nd);
}

// Row i of M v for a band matrix M: its terms left to right. AX and Solve_L.
double row_product(__global const double* restrict m, __global const double* restrict v, const uint i, const uint n,
                   const uint nd)
{
    const uint end = end_diagonal(i, n, nd);
    double sum = 0.0;
    for (uint d = first_diagonal(i, nd); d < end; ++d) {
        sum += m[d * n + i] * v[i + d - nd];
    }
    return sum;
}

// a(i, j) = sin²(x_i) cos²(x_j) + n δ_ij on the band, one work-item per element: dimension 0 over
// rows, dimension 1 over diagonals.
__kernel void newton_matrix_a(__global double* restrict a, __global const double* restrict x, const uint n,
                              const uint nd)
{
    const uint i = get_global_id(0);
    const uint d = get_global_id(1);
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

// ax = A x, one work-item per row, the band's terms left to right.
__kernel void newton_ax(__global double* restrict ax, __global const double* restrict a,
                        __global const double* restrict x, const uint n, const uint nd)
{
    const uint i = get_global_id(0);
    if (i < n) {
        ax[i] = row_product(a, x, i, n, nd);
    }
}

// phi = A(x) x - f.
__kernel void newton_phi(__global double* restrict phi, __global const double* restrict ax,
                         __global const double* restrict f, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        phi[i] = ax[i] - f[i];
    }
}

// The Fréchet derivative of A(x) x on the band:
//   l(i, j) = a(i, j) - sin²(x_i) sin(2 x_j) x_j + δ_ij sin(2 x_i) S_i,  S_i = Σ_{|k-i| <= nd} cos²(x_k) x_k,
// from ∂a_ik/∂x_j = sin(2x_i) cos²(x_k) δ_ij - sin(2x_k) sin²(x_i) δ_kj. The two nonzero terms
// are written out: the original summed all 2nd + 1 k for every element. The diagonal's work-items sum
// S_i over the row's band.
__kernel void newton_d_phi(__global double* restrict l, __global const double* restrict x, const uint n, const uint nd)
{
    const uint i = get_global_id(0);
    const uint d = get_global_id(1);
    if (i >= n || d > 2 * nd) {
        return;
    }
    const uint first = first_diagonal(i, nd);
    const uint end = end_diagonal(i, n, nd);
    double value = 0.0;
    if (d >= first && d < end) {
        const uint j = i + d - nd;
        const double s = sin(x[i]);
        const double c = cos(x[j]);
        value = (s * s) * (c * c) - (s * s) * (sin(2.0 * x[j]) * x[j]);
        if (d == nd) {
            double sum = 0.0;
            for (uint e = first; e < end; ++e) {
                const double ck = cos(x[i + e - nd]);
                sum += (ck * ck) * x[i + e - nd];
            }
            value += (double)n + sin(2.0 * x[i]) * sum;
        }
    }
    l[d * n + i] = value;
}

// One Jacobi step for L v = -phi: v1_i = v0_i + (-phi_i - Σ_j l_ij v0_j) / l_ii.
__kernel void newton_solve_l(__global const double* restrict l, __global const double* restrict phi,
                             __global const double* restrict v0, __global double* restrict v1, const uint n,
                             const uint nd)
{
    const uint i = get_global_id(0);
    if (i < n) {
        v1[i] = v0[i] + (-phi[i] - row_product(l, v0, i, n, nd)) / l[nd * n + i];
    }
}

// delta_i = |v1_i - v0_i|, then v0 = v1: the inner check's terms, and the next step's start.
__kernel void newton_eps_l(__global double* restrict v0, __global const double* restrict v1,
                           __global double* restrict delta, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        delta[i] = fabs(v1[i] - v0[i]);
        v0[i] = v1[i];
    }
}

// x1 = x0 + tau v: one step of the continuous analogue, t advanced by tau.
__kernel void newton_solve_g(__global const double* restrict x0, __global double* restrict x1,
                             __global const double* restrict v, const double tau, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        x1[i] = x0[i] + tau * v[i];
    }
}

// delta_i = |x1_i - x0_i|, then x0 = x1: the outer check's terms, and the next iteration's x.
__kernel void newton_eps_g(__global double* restrict x0, __global const double* restrict x1,
                           __global double* restrict delta, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        delta[i] = fabs(x1[i] - x0[i]);
        x0[i] = x1[i];
    }
}

#endif
