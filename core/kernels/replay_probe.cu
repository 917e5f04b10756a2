// The probe that decides how a device replays sequences (Recording::fastest): a kernel that does
// nothing, so that a chain of its launches costs what launching costs. The same entry point as
// replay_probe.cl.
extern "C" __global__ void duet_replay_probe() {}
