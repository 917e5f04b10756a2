/* The CPU reference of saxpy.duet.toml: called as the kernel is, with the launch's arguments in
 * [launch] args order (pointers to the scalars, the buffers' host copies). */
void saxpy_reference(void* const* args)
{
    const int n = *(const int*)args[0];
    const float a = *(const float*)args[1];
    const float* x = args[2];
    float* y = args[3];
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
