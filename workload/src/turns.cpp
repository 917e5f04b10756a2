// Runs that take turns: one mutex and one condition say whose turn it is.
#include <duet/workload/turns.hpp>

#include <duet/detail/saturating.hpp>
#include <duet/detail/text.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace duet::workload {

/// Who holds the turn, and who is still in the rotation.
struct Rotation {
    explicit Rotation(std::size_t seats) : seated(seats, true), settled(seats, false) {}

    /// Waits until `seat` holds the turn.
    void take(std::size_t seat)
    {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return holder == seat; });
    }

    void hand_on(std::size_t seat)
    {
        std::unique_lock lock(mutex);
        holder = after(seat);
        changed.notify_all();
        changed.wait(lock, [&] { return holder == seat; });
    }

    /// `seat` leaves; where it held the turn, the next one still seated has it.
    void leave(std::size_t seat)
    {
        const std::lock_guard lock(mutex);
        seated[seat] = false;
        settled[seat] = true;
        if (holder == seat) {
            holder = after(seat);
        }
        changed.notify_all();
    }

    /// The next seat after `seat` still in the rotation, or `seat` where no other is.
    std::size_t after(std::size_t seat) const
    {
        for (std::size_t step = 1; step < seated.size(); ++step) {
            const std::size_t next = (seat + step) % seated.size();
            if (seated[next]) {
                return next;
            }
        }
        return seat;
    }

    std::mutex mutex;
    std::condition_variable changed;
    std::vector<bool> seated;
    std::vector<bool> settled; ///< the seat's own timing rule is met, or it has left
    std::size_t holder = 0;
};

Turn::Turn(std::shared_ptr<Rotation> rotation, std::size_t seat) : rotation_(std::move(rotation)), seat_(seat) {}

void Turn::hand_on() const
{
    rotation_->hand_on(seat_);
}

void Turn::set_settled(bool settled) const
{
    const std::lock_guard lock(rotation_->mutex);
    rotation_->settled[seat_] = settled;
}

bool Turn::others_unsettled() const
{
    const std::lock_guard lock(rotation_->mutex);
    for (std::size_t seat = 0; seat < rotation_->settled.size(); ++seat) {
        if (seat != seat_ && !rotation_->settled[seat]) {
            return true;
        }
    }
    return false;
}

std::optional<std::string> why_apart(const std::vector<Job>& jobs)
{
    struct Need {
        std::string key; ///< the physical device: its PCI bus id, else its name and memory size
        std::string name;
        std::uint64_t bytes = 0;
        std::uint64_t has = 0;
    };
    std::vector<Need> devices;
    std::uint64_t host_bytes = 0;
    for (const auto& job : jobs) {
        Footprint footprint;
        try {
            footprint =
                job.workload->footprint({job.device, job.variant, job.settings, true, job.seed, Timing::once()});
        } catch (...) {
            continue;
        }
        const auto& p = job.device.properties();
        host_bytes = detail::saturating_add(host_bytes, host_bytes_needed(footprint, job.device));
        if (p.type == DeviceType::cpu) {
            continue;
        }
        // Where the backend gives no bus id, devices of one name and memory size are taken for one
        // GPU seen through two APIs: counted together, they are refused turns too soon, never too late.
        const std::string key =
            p.pci_bus_id.empty() ? p.name + " with " + std::to_string(p.global_memory) + " bytes" : p.pci_bus_id;
        auto need = std::find_if(devices.begin(), devices.end(), [&](const Need& n) { return n.key == key; });
        if (need == devices.end()) {
            need = devices.insert(devices.end(), {key, job.label + " (" + p.name + ")", 0, p.global_memory});
        } else {
            need->name += " and " + job.label;
            need->has = need->has == 0 ? p.global_memory : std::min(need->has, p.global_memory);
        }
        need->bytes = detail::saturating_add(need->bytes, footprint.device_bytes);
    }
    for (const auto& need : devices) {
        if (need.has != 0 && need.bytes > need.has) {
            return "together they need " + detail::bytes_text(need.bytes) + " of the memory of " + need.name +
                   ", which has " + detail::bytes_text(need.has);
        }
    }
    if (const auto available = host_available_memory(); available && host_bytes > *available) {
        return "together they need " + detail::bytes_text(host_bytes) + " of host memory, and " +
               detail::bytes_text(*available) + " is available";
    }
    return std::nullopt;
}

std::vector<Run> execute_in_turns(const std::vector<Job>& jobs, bool verify,
                                  const std::function<void(const Job&)>& on_start, std::optional<std::string>* apart)
{
    std::vector<Run> runs;
    std::optional<std::string> why = jobs.size() <= 1 ? std::nullopt : why_apart(jobs);
    if (apart != nullptr) {
        *apart = why;
    }
    if (jobs.size() <= 1 || why) {
        for (const auto& job : jobs) {
            if (on_start) {
                on_start(job);
            }
            runs.push_back(execute(job, verify));
        }
        return runs;
    }
    const auto rotation = std::make_shared<Rotation>(jobs.size());
    std::vector<std::optional<Run>> done(jobs.size());
    std::vector<std::exception_ptr> escaped(jobs.size());
    {
        const auto run_seat = [&](std::size_t seat) {
            try {
                rotation->take(seat);
                if (on_start) {
                    on_start(jobs[seat]);
                }
                Job job = jobs[seat];
                job.timing.turn = std::make_shared<const Turn>(rotation, seat);
                done[seat] = execute(job, verify);
                done[seat]->job.timing.turn.reset();
            } catch (...) {
                escaped[seat] = std::current_exception();
            }
            rotation->leave(seat);
        };
        std::vector<std::jthread> threads;
        threads.reserve(jobs.size());
        try {
            for (std::size_t seat = 0; seat < jobs.size(); ++seat) {
                threads.emplace_back(run_seat, seat);
            }
        } catch (...) {
            // The seats without a thread leave, so that the threads started go round without
            // them and end; they are joined as `threads` goes.
            for (std::size_t seat = threads.size(); seat < jobs.size(); ++seat) {
                rotation->leave(seat);
            }
            throw;
        }
    }
    for (std::size_t seat = 0; seat < jobs.size(); ++seat) {
        if (escaped[seat]) {
            std::rethrow_exception(escaped[seat]);
        }
        runs.push_back(std::move(*done[seat]));
    }
    return runs;
}

} // namespace duet::workload
