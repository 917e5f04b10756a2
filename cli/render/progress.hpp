// A progress bar on standard error for long runs (compare all, bench sweeps); silent when standard
// error is not a terminal, so logs and pipes get only the results.
#pragma once

#include <cstddef>
#include <string>

namespace duet::cli {

class Progress {
public:
    explicit Progress(std::size_t total);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// Shows that step `done + 1` of the total, described by `what`, is under way.
    void start(const std::string& what);
    /// Erases the bar, so that what is printed next starts on a clean line.
    void clear();

private:
    std::size_t total_;
    std::size_t done_ = 0;
    bool enabled_;
    bool shown_ = false;
};

} // namespace duet::cli
