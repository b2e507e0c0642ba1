#include "ppe/arc/spawned_server.h"

#include <csignal>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ppe::arc {

namespace {

    // The first shell operator of `command` outside quotes (`;`, `&`, `|`, a newline, a
    // parenthesis), 0 when it is one simple command.
    char shellOperator(const std::string& command)
    {
        char quote = 0;
        for (size_t i = 0; i < command.size(); ++i) {
            const char c = command[i];
            if (c == '\\' && quote != '\'') {
                ++i;
                continue;
            }
            if (quote) {
                quote = c == quote ? 0 : quote;
                continue;
            }
            const bool redirection = (c == '&' || c == '|') // 2>&1, &>FILE, >|FILE
                && ((i > 0 && (command[i - 1] == '>' || command[i - 1] == '<'))
                    || (i + 1 < command.size() && command[i + 1] == '>'));
            if (c == '\'' || c == '"')
                quote = c;
            else if (!redirection && (c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')'))
                return c;
        }
        return 0;
    }

} // namespace

// Starts `command` through the shell (exec'd, so that the child is the server itself and a
// SIGINT to it stops the target) in a process group of its own: a Ctrl-C at the terminal
// reaches ppe-arc, which detaches cleanly, and not the server. `exec` would drop whatever
// follows a `;` or `&&`: such a command is refused.
Result<pid_t> spawnServer(const std::string& command)
{
    if (const char op = shellOperator(command))
        return Error { {}, 0,
            "--spawn takes one server command, run with exec so that ppe-arc can signal the server; `"
                + std::string(1, op == '\n' ? ' ' : op)
                + "` would drop what follows: put the commands in a script that ends with `exec SERVER ...`" };
    std::string line = "exec " + command;
    char* argv[] = { const_cast<char*>("sh"), const_cast<char*>("-c"), line.data(), nullptr };
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = -1;
    const int error = posix_spawn(&pid, "/bin/sh", nullptr, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    if (error)
        return Error { {}, 0, "cannot start `" + command + "`: " + std::strerror(error) };
    return pid;
}

bool exited(pid_t pid) { return pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == pid; }

Result<gdbremote::Session> connectToServer(
    const std::string& remote, pid_t server, std::chrono::milliseconds patience, gdbremote::SessionOptions options)
{
    const auto until = gdbremote::Clock::now() + patience;
    auto session = gdbremote::Session::connect(remote, std::chrono::milliseconds(3000), options);
    while (!session && server > 0 && gdbremote::Clock::now() < until && !exited(server)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        session = gdbremote::Session::connect(remote, std::chrono::milliseconds(3000), options);
    }
    return session;
}

SpawnedServer::~SpawnedServer()
{
    for (int i = 0; i < 500 && pid > 0; ++i) {
        if (exited(pid))
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (pid > 0 && ::kill(pid, SIGKILL) == 0)
        ::waitpid(pid, nullptr, 0);
}

} // namespace ppe::arc
