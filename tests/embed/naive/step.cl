// One of two programs of the same file name that one target embeds under names of their own
// (step_naive here, step_pyramid from pyramid/step.cl): out[i] = i.
__kernel void fill_index(__global float* out, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        out[i] = (float)i;
    }
}
