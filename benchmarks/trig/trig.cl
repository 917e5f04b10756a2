// Double sin and cos alone (benchmarks/trig/trig.duet.toml): 8 of each per element.
__kernel void trig(__global const double* restrict x, __global double* restrict y, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        double sum = 0.0;
        for (int k = 0; k < 8; ++k) {
            sum += sin(x[i] + 0.125 * k) * cos(x[i] - 0.125 * k);
        }
        y[i] = sum;
    }
}
