// Everything a duet test file includes: the device parameters and fixture, programs, random
// inputs, checks, environment helpers and tolerances.
#pragma once

#include <gtest/gtest.h>

#include <duet/duet.hpp>
#include <duet_kernels/test_kernels.hpp>

#include "checks.hpp"
#include "devices.hpp"
#include "environment.hpp"
#include "programs.hpp"
#include "random.hpp"
#include "tolerances.hpp"
