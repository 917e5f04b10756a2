// Redraws one line of standard error in place.
#include "render/progress.hpp"

#include "render/table.hpp"

#include <cstdio>

#include <unistd.h>

namespace duet::cli {

Progress::Progress(std::size_t total) : total_(total), enabled_(::isatty(STDERR_FILENO) != 0) {}

Progress::~Progress()
{
    clear();
}

void Progress::start(const std::string& what)
{
    if (!enabled_) {
        return;
    }
    constexpr std::size_t width = 24;
    const std::size_t filled = total_ == 0 ? width : width * done_ / total_;
    const std::string line = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " +
                             std::to_string(done_ + 1) + "/" + std::to_string(total_) + "  " + what;
    // \r returns to the line's start, ESC[K erases what a longer earlier line left behind.
    std::fprintf(stderr, "\r%s\033[K", truncate(line, 110).c_str());
    std::fflush(stderr);
    shown_ = true;
    ++done_;
}

void Progress::clear()
{
    if (shown_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        shown_ = false;
    }
}

} // namespace duet::cli
