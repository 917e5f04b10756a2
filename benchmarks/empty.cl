// An empty kernel: launching it back to back measures per-launch overhead and nothing else.
__kernel void empty(void) {}
