// The whole public API of duet.
#pragma once

#include <duet/buffer.hpp>
#include <duet/build_options_scope.hpp>
#include <duet/cache.hpp>
#include <duet/device.hpp>
#include <duet/error.hpp>
#include <duet/event.hpp>
#include <duet/host_memory.hpp>
#include <duet/launch_log.hpp>
#include <duet/mirror.hpp>
#include <duet/program.hpp>
#include <duet/queue.hpp>
#include <duet/range.hpp>
#include <duet/registry.hpp>
#include <duet/sequence.hpp>
