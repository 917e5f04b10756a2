// The Spec's arrays and hooks on every device, with device copies and fills in place of kernels:
// arrays updated in place, device scratch, pitched arrays and their padding, swaps between
// launches, instances, resident inputs, outputs with tolerances of their own, the launch step's
// report, the finish hook, a schedule of the workload's own, and the footprint of each.
#include <duet/workload/kit.hpp>

#include <algorithm>
#include <atomic>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

constexpr std::size_t n = 1001;

std::size_t size_n(const Settings&)
{
    return n;
}

WorkloadInfo info(std::string name)
{
    return {.name = std::move(name),
            .description = "a Spec of the hooks test",
            .variants = {"default"},
            .parameters = {integer_parameter("n", 1001, 1, 1 << 20, "elements")}};
}

/// A spec over `buffers` whose launch step is `launch` and whose reference copies input x to every
/// output (an in_out's own values kept where `keep_in_out`).
Spec spec_of(std::vector<BufferSpec> buffers, Launch launch)
{
    Spec spec;
    spec.info = info("hooks");
    spec.buffers = std::move(buffers);
    spec.prepare = [launch](const Device&, const Settings&, const std::string&) -> Prepared { return launch; };
    spec.reference = [names = spec.buffers](const Settings&, const HostArrays& arrays) {
        for (const auto& buffer : names) {
            if (buffer.role == BufferSpec::Role::output) {
                const auto x = arrays.in("x");
                const auto out = arrays.out(buffer.name);
                for (std::size_t i = 0; i < out.size(); ++i) {
                    out[i] = x[i % x.size()];
                }
            }
        }
    };
    spec.bytes = [](const Settings&) { return 1.0; };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "a copy is exact"}; };
    return spec;
}

RunRequest request_for(const Device& device, const Spec& spec, Timing timing = Timing::once())
{
    return {device, "default", Settings(spec.info, {}), true, test_seed(), timing};
}

Measurement run(const Device& device, Spec spec, Timing timing = Timing::once())
{
    const RunRequest request = request_for(device, spec, timing);
    return SpecWorkload(std::move(spec)).run(request);
}

void copy_x_to(Queue& queue, const DeviceBuffers& buffers, const std::string& name, std::size_t instance = 0)
{
    queue.copy(buffers.get(name, instance).view(0, n), buffers.get("x").view(0, n));
}

class SpecHooks : public DeviceTest {};

TEST_P(SpecHooks, AnInOutArrayStartsAsDrawnAndIsCheckedInPlace)
{
    BufferSpec y = in_out("y", size_n);
    y.draw = [](std::size_t count, std::uint64_t) { return std::vector<float>(count, 2.0f); };
    // The kernel updates the first half; the second keeps the values it came in with.
    Spec spec = spec_of({input("x", size_n), y}, [](Queue& queue, const DeviceBuffers& buffers) {
        queue.copy(buffers.get("y").view(0, n / 2), buffers.get("x").view(0, n / 2));
    });
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        EXPECT_EQ(arrays.in("y")[0], 2.0f);
        EXPECT_EQ(arrays.out("y")[n - 1], 2.0f); // starts as drawn
        std::copy_n(arrays.in("x").begin(), n / 2, arrays.out("y").begin());
    };
    const Measurement result = run(device(), std::move(spec));
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    EXPECT_EQ(result.output.size(), n);
    EXPECT_EQ(result.writes.judged, 0u); // its elements start with values: only its sentinels are judged
}

TEST_P(SpecHooks, ScratchIsDeviceOnlyAndPoisonedBeforeEachPass)
{
    const auto through_scratch = [](Queue& queue, const DeviceBuffers& buffers) {
        copy_x_to(queue, buffers, "t");
        queue.copy(buffers.get("y").view(0, n), buffers.get("t").view(0, n));
    };
    const Measurement good =
        run(device(), spec_of({input("x", size_n), scratch("t", size_n), output("y", size_n)}, through_scratch));
    EXPECT_TRUE(good.matches_reference()) << good.agreement.describe();
    EXPECT_EQ(good.output.size(), n); // the scratch is not an output

    // Read before anything wrote it: the scratch holds each pass's poison, so y was never written.
    const Measurement unwritten =
        run(device(), spec_of({input("x", size_n), scratch("t", size_n), output("y", size_n)},
                              [](Queue& queue, const DeviceBuffers& buffers) {
                                  queue.copy(buffers.get("y").view(0, n), buffers.get("t").view(0, n));
                              }));
    EXPECT_FALSE(unwritten.matches_reference());
    EXPECT_EQ(unwritten.writes.unwritten, n);
}

/// x and y pitched, 37 × 5 × 3; `rows` copies of x's pitched rows into y's (all of the bytes when
/// `whole`, padding included).
Spec pitched_spec(bool whole)
{
    const auto extent = [](const Settings&) { return Extent3{37, 5, 3}; };
    BufferSpec x = input("x", size_n);
    x.pitched = extent;
    BufferSpec y = output("y", size_n);
    y.pitched = extent;
    y.shape = [](const Settings&) { return Shape{37}; };
    return spec_of({x, y}, [whole](Queue& queue, const DeviceBuffers& buffers) {
        const PitchedBuffer<float> from = buffers.pitched("x");
        const PitchedBuffer<float> to = buffers.pitched("y");
        ASSERT_EQ(from.pitch(), to.pitch());
        if (whole) {
            queue.copy_bytes(to.raw(), 0, from.raw(), 0, from.raw().bytes());
            return;
        }
        for (std::size_t row = 0; row < 5 * 3; ++row) {
            queue.copy_bytes(to.raw(), row * to.pitch(), from.raw(), row * from.pitch(), 37 * sizeof(float));
        }
    });
}

TEST_P(SpecHooks, PitchedArraysAreDenseOnTheHostAndTheirPaddingIsChecked)
{
    const Measurement result = run(device(), pitched_spec(false));
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    EXPECT_EQ(result.output.size(), 37u * 5 * 3);
    EXPECT_EQ(result.output_shape.columns, 37u);

    const RunRequest request = request_for(device(), pitched_spec(true));
    const SpecWorkload workload(pitched_spec(true));
    const PitchedBuffer<float> probe = device().alloc_pitched<float>(37, 1);
    if (probe.pitch() == 37 * sizeof(float)) {
        GTEST_SKIP() << "this device pads no rows of 37 floats: no padding to write";
    }
    const auto error = expect_error<Error>([&] { workload.run(request); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("row 0 of 'y'"), std::string::npos) << error->message();
}

TEST_P(SpecHooks, ASwapBetweenLaunchesReadsTheOutputFromTheBufferItsNameHolds)
{
    auto passes = std::make_shared<std::atomic<int>>(0);
    const Spec spec = spec_of({input("x", size_n), scratch("t", size_n), output("y", size_n)},
                              [passes](Queue& queue, DeviceBuffers& buffers) {
                                  ++*passes;
                                  copy_x_to(queue, buffers, "t");
                                  buffers.swap("y", "t"); // y now names what t held: a copy of x
                              });
    const Measurement result = run(device(), spec, Timing::exactly(3, 0));
    EXPECT_EQ(passes->load(), 4); // each pass starts with every name on its own buffer again
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    // Read from scratch, which each pass poisons whole as it does an output: judged all the same.
    EXPECT_EQ(result.writes.judged, n);
    EXPECT_EQ(result.writes.unwritten, 0u);

    const auto mismatched = expect_error<InvalidArgument>([&] {
        run(device(),
            spec_of({input("x", size_n), scratch("t", [](const Settings&) { return n + 1; }), output("y", size_n)},
                    [](Queue&, DeviceBuffers& buffers) { buffers.swap("y", "t"); }));
    });
    ASSERT_TRUE(mismatched);
    EXPECT_NE(mismatched->message().find("'y' and 't' cannot be swapped"), std::string::npos) << mismatched->message();
}

TEST_P(SpecHooks, InstancesAreBuffersOfTheirOwnEndToEndOnTheHost)
{
    BufferSpec y = output("y", size_n);
    y.instances = [](const Settings&) { return std::size_t{3}; };
    const Measurement result =
        run(device(), spec_of({input("x", size_n), y}, [](Queue& queue, const DeviceBuffers& buffers) {
                for (std::size_t p = 0; p < 3; ++p) {
                    copy_x_to(queue, buffers, "y", p);
                }
            }));
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    EXPECT_EQ(result.output.size(), 3 * n);

    // The last instance left unwritten: its elements, and only those, were never written.
    const Measurement partial =
        run(device(), spec_of({input("x", size_n), y}, [](Queue& queue, const DeviceBuffers& buffers) {
                copy_x_to(queue, buffers, "y", 0);
                copy_x_to(queue, buffers, "y", 1);
            }));
    EXPECT_FALSE(partial.matches_reference());
    EXPECT_EQ(partial.writes.unwritten, n);

    const auto missing = expect_error<InvalidArgument>([&] {
        run(device(), spec_of({input("x", size_n), y},
                              [](Queue& queue, const DeviceBuffers& buffers) { copy_x_to(queue, buffers, "y", 3); }));
    });
    ASSERT_TRUE(missing);
    EXPECT_NE(missing->message().find("no instance 3"), std::string::npos) << missing->message();
}

TEST_P(SpecHooks, AResidentInputIsCopiedOnceAndNotByAPass)
{
    BufferSpec x = input("x", size_n);
    x.resident = true;
    Spec spec = spec_of({x, output("y", size_n)},
                        [](Queue& queue, const DeviceBuffers& buffers) { copy_x_to(queue, buffers, "y"); });
    const Measurement result = run(device(), spec, Timing::exactly(3, 0));
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();

    spec.prepare = [](const Device&, const Settings&, const std::string&) {
        Prepared prepared;
        prepared.launch = [](Queue&, DeviceBuffers&) {};
        prepared.schedule = [](Pass& pass) {
            pass.copy_in(pass.queue(), "x");
            return pass.sample();
        };
        return prepared;
    };
    const auto error = expect_error<InvalidArgument>([&] { run(device(), spec); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("'x' is not copied in by a pass"), std::string::npos) << error->message();
}

TEST_P(SpecHooks, OutputsWithToleranceOfTheirOwnAreJudgedEachAgainstIt)
{
    // y exact; z filled with 1 where the reference says 1.2: within z's 0.5, not within 0.1.
    const auto make = [](double z_tolerance) {
        BufferSpec z = output("z", size_n);
        z.tolerance = [z_tolerance](const Settings&) { return Tolerance{z_tolerance, "z's own"}; };
        Spec spec =
            spec_of({input("x", size_n), output("y", size_n), z}, [](Queue& queue, const DeviceBuffers& buffers) {
                copy_x_to(queue, buffers, "y");
                queue.fill(buffers.get("z").view(0, n), 1.0f);
            });
        spec.reference = [](const Settings&, const HostArrays& arrays) {
            std::ranges::copy(arrays.in("x"), arrays.out("y").begin());
            std::ranges::fill(arrays.out("z"), 1.2f);
        };
        return spec;
    };
    const Measurement within = run(device(), make(0.5));
    EXPECT_TRUE(within.matches_reference()) << within.agreement.describe();
    EXPECT_EQ(within.tolerance, 0.5);
    EXPECT_EQ(within.tolerance_reason, "z's own");

    const Measurement beyond = run(device(), make(0.1));
    EXPECT_FALSE(beyond.matches_reference());
    EXPECT_EQ(beyond.tolerance, 0.1);
    EXPECT_GT(beyond.max_error, 0.1);
}

TEST_P(SpecHooks, TheLastTimedLaunchReportsAndFinishWidensTheToleranceOrSetsTheError)
{
    auto launches = std::make_shared<std::atomic<int>>(0);
    const auto make = [launches](std::function<void(Finish&)> finish) {
        Spec spec = spec_of({input("x", size_n), output("y", size_n)}, {});
        spec.prepare = [launches, finish](const Device&, const Settings&, const std::string&) {
            Prepared prepared = [launches](Queue& queue, DeviceBuffers& buffers) {
                copy_x_to(queue, buffers, "y");
                return Report{{"launch", static_cast<double>(++*launches)}};
            };
            prepared.finish = finish;
            return prepared;
        };
        return spec;
    };
    const Measurement widened = run(device(), make([](Finish& finish) {
                                        EXPECT_NE(finish.expected, nullptr);
                                        finish.widen(0.25, "the run's own bound");
                                        finish.widen(0.125, "narrower, ignored");
                                        finish.result.extras.emplace_back("finished", 1);
                                    }),
                                    Timing::exactly(3, 1));
    EXPECT_TRUE(widened.matches_reference());
    EXPECT_EQ(widened.tolerance, 0.25);
    EXPECT_EQ(widened.tolerance_reason, "the run's own bound");
    // The warm-up pass is the first launch and the check pass the fifth: the report is the fourth's.
    ASSERT_GE(widened.extras.size(), 2u);
    EXPECT_EQ(widened.extras[0], (std::pair<std::string, double>{"launch", 4}));
    EXPECT_EQ(widened.extras.back(), (std::pair<std::string, double>{"finished", 1}));

    const Measurement own_error = run(device(), make([](Finish& finish) { finish.set_error(2.0); }));
    EXPECT_FALSE(own_error.matches_reference());
    EXPECT_EQ(own_error.max_error, 2.0);
    EXPECT_EQ(own_error.agreement.differing, 0u); // the elements still agree: the error is the workload's own
}

TEST_P(SpecHooks, AScheduleOfItsOwnRunsThePassAndFinishCanRepeatAnother)
{
    Spec spec = spec_of({input("x", size_n), output("y", size_n)}, {});
    spec.prepare = [](const Device& device, const Settings&, const std::string&) {
        Prepared prepared = [](Queue& queue, DeviceBuffers& buffers) { copy_x_to(queue, buffers, "y"); };
        // Copies in on a queue of its own, then the launch and the copy out on the run's.
        auto side = std::make_shared<Queue>(device.create_queue());
        prepared.schedule = [side](Pass& pass) {
            pass.copy_in(*side);
            side->finish();
            pass.mark("side_copies");
            pass.launch(pass.queue());
            pass.mark(Phase::kernel);
            pass.copy_out(pass.queue(), "y");
            pass.mark(Phase::d2h);
            return pass.sample();
        };
        prepared.finish = [](Finish& finish) {
            const auto [samples, outputs] = finish.repeat([](Pass& pass) {
                pass.copy_in(pass.queue());
                pass.launch(pass.queue());
                pass.copy_out(pass.queue());
                pass.mark(Phase::kernel);
                return pass.sample();
            });
            finish.result.extras.emplace_back("repeated", static_cast<double>(samples.size()));
            EXPECT_EQ(outputs.as<float>(), finish.result.output.as<float>());
        };
        return prepared;
    };
    const Measurement result = run(device(), std::move(spec), Timing::exactly(2, 0));
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    ASSERT_EQ(result.samples.size(), 2u);
    EXPECT_GE(result.samples[0].extra_phase_ms("side_copies"), 0.0);
    EXPECT_EQ(result.samples[0].extra_phases.size(), 1u);
    EXPECT_EQ(result.extras.back(), (std::pair<std::string, double>{"repeated", 2}));
}

TEST_P(SpecHooks, AnInputWithoutSentinelsIsAllocatedExactly)
{
    BufferSpec x = input("x", size_n);
    x.sentinels = false;
    Spec spec = spec_of({x, output("y", size_n)}, [](Queue& queue, const DeviceBuffers& buffers) {
        EXPECT_EQ(buffers.get("x").size(), n); // what a __constant argument must fit
        EXPECT_EQ(buffers.get("y").size(), n + sentinel_elements);
        copy_x_to(queue, buffers, "y");
    });
    const RunRequest request = request_for(device(), spec);
    const Footprint exact = SpecWorkload(spec).footprint(request);
    spec.buffers[0].sentinels = true;
    EXPECT_EQ(SpecWorkload(spec).footprint(request).device_bytes - exact.device_bytes,
              sentinel_elements * sizeof(float));
    spec.buffers[0].sentinels = false;
    EXPECT_TRUE(run(device(), spec).matches_reference());

    spec.buffers[1].sentinels = false;
    const auto error = expect_error<InvalidArgument>([&] { run(device(), spec); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("'y' has no sentinels, which only an input may go without"), std::string::npos)
        << error->message();
}

TEST_P(SpecHooks, TheFootprintCountsEveryRoleAsItIsHeld)
{
    const auto footprint = [&](std::vector<BufferSpec> buffers) {
        const Spec spec = spec_of(std::move(buffers), [](Queue&, DeviceBuffers&) {});
        const RunRequest request = request_for(device(), spec);
        return SpecWorkload(spec).footprint(request);
    };
    const Footprint base = footprint({input("x", size_n)});
    const std::uint64_t flat = (n + sentinel_elements) * sizeof(float);
    const Footprint with_scratch = footprint({input("x", size_n), scratch("t", size_n)});
    EXPECT_EQ(with_scratch.device_bytes - base.device_bytes, flat);
    EXPECT_EQ(with_scratch.host_bytes, base.host_bytes); // device only

    BufferSpec y = output("y", size_n);
    y.instances = [](const Settings&) { return std::size_t{3}; };
    const Footprint with_instances = footprint({input("x", size_n), y});
    EXPECT_EQ(with_instances.device_bytes - base.device_bytes, 3 * flat);
    EXPECT_EQ(with_instances.host_bytes - base.host_bytes, 3 * 3 * flat); // host buffer, result, reference's

    const Footprint with_in_out = footprint({input("x", size_n), in_out("z", size_n)});
    EXPECT_EQ(with_in_out.device_bytes - base.device_bytes, flat);
    EXPECT_EQ(with_in_out.host_bytes - base.host_bytes, 2 * n * sizeof(float) + 3 * flat);
}

TEST(SpecRules, ARuleOverThreeParametersNamesEachAndSaysWhatItComputed)
{
    WorkloadInfo stability = info("stability");
    stability.parameters = {integer_parameter("rows", 64, 1, 1 << 16, "grid rows"),
                            integer_parameter("cols", 64, 1, 1 << 16, "grid columns"),
                            integer_parameter("chip", 1, 1, 64, "chip size")};
    stability.rules = {
        {.parameters = {"rows", "cols", "chip"},
         .text = "rows * cols / chip must stay stable",
         .holds = [](const Settings& settings) {
             const std::int64_t value = settings.integer("rows") * settings.integer("cols") / settings.integer("chip");
             if (value > 4096) {
                 throw InvalidArgument("stability", "rule",
                                       "it is " + std::to_string(value) + "; the largest stable is 4096");
             }
             return true;
         }}};
    EXPECT_NO_THROW(Settings(stability, {{"rows", "100"}, {"cols", "80"}, {"chip", "2"}}));
    const auto error = expect_error<InvalidArgument>([&] {
        Settings(stability, {{"rows", "100"}, {"cols", "100"}, {"chip", "2"}});
    });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("parameters 'rows' (100), 'cols' (100) and 'chip' (2) of workload 'stability' "
                                    "break a rule: rows * cols / chip must stay stable: it is 5000; the largest "
                                    "stable is 4096"),
              std::string::npos)
        << error->message();
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(SpecHooks);

} // namespace
} // namespace duet::test
