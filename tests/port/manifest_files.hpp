// A good manifest (a SAXPY pair) and its kernels, written to a scratch directory with one line
// changed, for the tests of bad manifests; and .npy files as numpy.save writes them.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "duet_test.hpp"

namespace duet::test {

/// The good manifest; line numbers matter: the tests name them.
extern const char* const good_manifest;
extern const char* const cuda_saxpy;
extern const char* const opencl_saxpy;

void write(const std::filesystem::path& path, const std::string& text);

/// The good manifest with `from` replaced by `to`, and its kernels, in `dir`; the manifest's path.
std::filesystem::path manifest_with(const TempDir& dir, const std::string& from, const std::string& to,
                                    const std::string& opencl = opencl_saxpy);
/// The same with each change made in turn: the first `from` replaced by its `to`.
std::filesystem::path manifest_with(const TempDir& dir, const std::vector<std::pair<std::string, std::string>>& changes,
                                    const std::string& opencl = opencl_saxpy);

/// The message of the InvalidArgument that reading `path` throws; fails the test if it does not.
std::string refusal(const std::filesystem::path& path);

/// A .npy file (format 1.0) with the header dict `header`, padded as numpy pads it, then `data`.
std::string npy_with_header(std::string header, const std::string& data);

/// A .npy file (format 1.0) of `dtype` holding `data`, as numpy.save writes it.
std::string npy(const std::string& dtype, const std::string& shape, const std::string& data);

} // namespace duet::test
