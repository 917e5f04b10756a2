// Which replay Recording::fastest takes on a device. A device's own replay is not always the
// cheaper: a PoCL command buffer can cost more a kernel than issuing its kernels again. So the two
// are measured once on a chain of empty kernels, and the answer kept in the kernel cache as a
// tuner's choice is, keyed by the device, its driver and the probe's source.
#include <duet/cache.hpp>
#include <duet/device.hpp>
#include <duet/queue.hpp>
#include <duet/sequence.hpp>

#include <duet_kernels/replay_probe.hpp>

#include "state.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

namespace duet {

namespace {

constexpr int chain = 32; // kernels a replay runs: enough that one replay's own cost is spread thin
constexpr int rounds = 7; // replays of each way, alternating, after one of each to warm up

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

/// "<own way> <own us> <plain us>", as store_choice writes it; nullopt for anything else.
std::optional<ReplayChoice> parse_choice(const std::string& kept)
{
    std::istringstream in(kept);
    std::string own;
    ReplayChoice choice;
    if (!(in >> own >> choice.own_us >> choice.plain_us) || !(choice.own_us > 0) || !(choice.plain_us > 0)) {
        return std::nullopt;
    }
    if (own == to_string(ReplayMethod::graph)) {
        choice.own = ReplayMethod::graph;
    } else if (own == to_string(ReplayMethod::command_buffer)) {
        choice.own = ReplayMethod::command_buffer;
    } else {
        return std::nullopt;
    }
    choice.from_cache = true;
    return choice;
}

std::string kept_text(const ReplayChoice& choice)
{
    char text[96];
    std::snprintf(text, sizeof text, "%s %.3f %.3f", std::string(to_string(choice.own)).c_str(), choice.own_us,
                  choice.plain_us);
    return text;
}

/// Both ways timed on the host, from the replay's call to the queue drained; nullopt where the
/// device has no way of its own.
std::optional<ReplayChoice> measure(const Device& device)
{
    Queue queue = device.create_queue();
    queue.state()->unlogged = true; // duet's own launches, not the caller's
    const Kernel probe = device.build(kernels::replay_probe()).kernel("duet_replay_probe");
    const auto issue = [&](Queue& recording) {
        for (int i = 0; i < chain; ++i) {
            recording.launch(probe, Range::grid_block(1, 1));
        }
    };
    const Sequence own = queue.record_sequence(issue, Recording::native);
    if (own.method() == ReplayMethod::plain) {
        return std::nullopt;
    }
    const Sequence plain = queue.record_sequence(issue, Recording::plain);
    const auto us_a_kernel = [&](const Sequence& sequence) {
        const auto start = std::chrono::steady_clock::now();
        queue.replay(sequence);
        queue.finish();
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / chain;
    };
    us_a_kernel(own); // the first replays upload the graph or command buffer and load the module
    us_a_kernel(plain);
    std::vector<double> own_us, plain_us;
    for (int round = 0; round < rounds; ++round) {
        own_us.push_back(us_a_kernel(own));
        plain_us.push_back(us_a_kernel(plain));
    }
    return ReplayChoice{own.method(), median(own_us), median(plain_us), false};
}

} // namespace

std::string ReplayChoice::text() const
{
    char figures[96];
    std::snprintf(figures, sizeof figures, "%.1f us a kernel against %.1f us", plain_is_faster() ? plain_us : own_us,
                  plain_is_faster() ? own_us : plain_us);
    return std::string(plain_is_faster() ? "plain" : to_string(own)) + ": " + figures + " for " +
           (plain_is_faster() ? "its " + std::string(to_string(own)) : std::string("the plain replay")) + " (" +
           (from_cache ? "kept in the kernel cache" : "measured") + ")";
}

std::optional<ReplayChoice> replay_choice(const Device& device)
{
    const detail::DeviceState& state = *device.state();
    const std::lock_guard lock(state.replay_mutex);
    if (state.replay_known) {
        return state.replay;
    }
    const std::string source = tuning_source(kernels::replay_probe()); // another probe measures again
    std::optional<ReplayChoice> choice;
    if (const auto kept = load_tuning(device, "replay", source)) {
        choice = parse_choice(*kept);
    }
    if (!choice) {
        try {
            choice = measure(device);
        } catch (const std::exception&) {
            // The probe did not build or run (a build-options scope's flags, a device gone): no
            // choice, and the next sequence asks again.
            return std::nullopt;
        }
        if (choice) {
            store_tuning(device, "replay", source, kept_text(*choice));
        }
    }
    state.replay = choice;
    state.replay_known = true;
    return choice;
}

} // namespace duet
