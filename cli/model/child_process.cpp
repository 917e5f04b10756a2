#include "model/child_process.hpp"

#include <duet/detail/file.hpp>
#include <duet/error.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

extern char** environ;

namespace duet::cli {

int run_child(const ChildProcess& child)
{
    const std::string program = std::filesystem::path(child.command.at(0)).filename().string();
    std::vector<char*> argv;
    for (const auto& word : child.command) {
        argv.push_back(const_cast<char*>(word.c_str()));
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (child.output) {
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, child.output->c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0600);
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    } else {
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    }
    if (child.folder) {
        posix_spawn_file_actions_addchdir_np(&actions, child.folder->c_str());
    }
    pid_t pid = 0;
    const int error = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
        throw Error("duet", program, "cannot start " + child.command[0] + ": " + detail::error_text(error));
    }
    const auto deadline = child.limit ? std::optional(std::chrono::steady_clock::now() + *child.limit) : std::nullopt;
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, deadline ? WNOHANG : 0);
        if (done == pid) {
            break;
        }
        if (done < 0 && errno != EINTR) {
            throw Error("duet", program, "waiting for " + child.command[0] + ": " + detail::error_text(errno));
        }
        if (deadline && std::chrono::steady_clock::now() >= *deadline) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            throw Error("duet", program,
                        program + " ran past its limit of " + std::to_string(child.limit->count()) + " s: killed");
        }
        if (deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace duet::cli
