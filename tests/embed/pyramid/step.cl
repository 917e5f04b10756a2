// The other program of the file name step.cl, embedded as step_pyramid beside naive/step.cl's
// step_naive: out[i] = 2i, so a launch shows which of the two it ran.
__kernel void fill_index(__global float* out, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        out[i] = 2.0f * (float)i;
    }
}
