// Sequences as CUDA graphs: the queue's stream captured between begin and end, so its ordinary
// copies, fills and launches (queue.cpp) become the graph's nodes; instantiated once, launched
// on any stream of the device.
#include "common.hpp"

#include <memory>

namespace duet::backend::cuda {
namespace {

/// Owns a captured graph until it is instantiated; the executable graph does not need it.
struct CapturedGraph {
    CUgraph graph = nullptr;
    ~CapturedGraph()
    {
        if (graph != nullptr)
            driver().cuGraphDestroy(graph);
    }
};

} // namespace

duet_status queue_begin_recording(duet_queue queue, duet_replay_method* method)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        // Thread-local: a synchronising call on this thread while it records is refused (the core
        // refuses its own first), while other threads, each on their own queues, carry on.
        check(driver().cuStreamBeginCapture(queue->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
              "cuStreamBeginCapture");
        *method = DUET_REPLAY_GRAPH;
    });
}

duet_status queue_end_recording(duet_queue queue, duet_sequence* sequence)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        CapturedGraph captured;
        const CUresult ended = driver().cuStreamEndCapture(queue->stream, &captured.graph);
        if (sequence == nullptr)
            return;
        check(ended, "cuStreamEndCapture");
        auto created = std::make_unique<duet_sequence_s>();
        created->device = queue->device;
        check(driver().cuGraphInstantiateWithFlags(&created->graph, captured.graph, 0), "cuGraphInstantiateWithFlags");
        *sequence = created.release();
    });
}

duet_status sequence_replay(duet_sequence sequence, duet_queue queue)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        check(driver().cuGraphLaunch(sequence->graph, queue->stream), "cuGraphLaunch");
    });
}

duet_status sequence_release(duet_sequence sequence)
{
    return guard([&] { delete sequence; });
}

} // namespace duet::backend::cuda

duet_sequence_s::~duet_sequence_s()
{
    using duet::backend::cuda::driver;
    // An executable graph still running is freed once it completes (cuGraphExecDestroy).
    if (graph != nullptr && driver().cuCtxSetCurrent(device->context) == CUDA_SUCCESS)
        driver().cuGraphExecDestroy(graph);
}
