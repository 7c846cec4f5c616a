#include "core/pool/internal/proctree.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

namespace pitwall::sched_internal {

namespace {

// Rounds of SIGKILL before giving up on a tree that keeps forking (each round waits kKillRoundMs).
constexpr int kKillRounds = 200;
constexpr int kKillRoundMs = 5;

// /proc/PID/stat: "PID (COMM) STATE PPID ..."; COMM may hold spaces and parentheses, so it ends at the last ')'.
std::optional<ProcessInfo> readStat(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    FILE* file = std::fopen(path, "re");
    if (!file)
        return std::nullopt;
    char buffer[512];
    const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, file);
    std::fclose(file);
    const std::string text(buffer, n);
    const auto open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open || close + 4 > text.size())
        return std::nullopt;
    ProcessInfo info;
    info.pid = pid;
    info.name = text.substr(open + 1, close - open - 1);
    info.state = text[close + 2];
    info.parent = static_cast<pid_t>(std::strtol(text.c_str() + close + 4, nullptr, 10));
    return info;
}

std::vector<ProcessInfo> allProcesses()
{
    std::vector<ProcessInfo> all;
    DIR* dir = ::opendir("/proc");
    if (!dir)
        return all;
    while (const dirent* entry = ::readdir(dir)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0')
            continue;
        if (auto info = readStat(static_cast<pid_t>(pid)))
            all.push_back(std::move(*info));
    }
    ::closedir(dir);
    return all;
}

bool alive(const ProcessInfo& p)
{
    return p.state != 'Z' && p.state != 'X';
}

// Reaps the zombies among `tree` that are this process's children (a specific pid each: never another child).
void reapOwnZombies(const std::vector<ProcessInfo>& tree)
{
    const pid_t self = ::getpid();
    for (const ProcessInfo& p : tree)
        if (p.parent == self) {
            int status = 0;
            ::waitpid(p.pid, &status, WNOHANG);
        }
}

bool anyAlive(const std::vector<ProcessInfo>& tree)
{
    for (const ProcessInfo& p : tree)
        if (alive(p))
            return true;
    return false;
}

} // namespace

std::vector<ProcessInfo> descendants(pid_t root)
{
    std::multimap<pid_t, ProcessInfo> byParent;
    for (ProcessInfo& p : allProcesses())
        byParent.emplace(p.parent, std::move(p));
    std::vector<ProcessInfo> out;
    std::vector<pid_t> parents{root};
    for (std::size_t i = 0; i < parents.size(); ++i) {
        const auto [first, last] = byParent.equal_range(parents[i]);
        for (auto it = first; it != last; ++it) {
            if (it->second.pid == root)
                continue; // never loop back
            out.push_back(it->second);
            parents.push_back(it->second.pid);
        }
    }
    return out;
}

std::optional<ProcessInfo> stoppedProcess(pid_t root)
{
    if (auto self = readStat(root); self && self->state == 'T')
        return self;
    for (const ProcessInfo& p : descendants(root))
        if (p.state == 'T')
            return p;
    return std::nullopt;
}

std::string describeProcess(const ProcessInfo& process)
{
    return "pid " + std::to_string(process.pid) + " (" + process.name + ")";
}

bool becomeSubreaper()
{
    return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

std::vector<ProcessInfo> stopOwnDescendants(double graceSeconds)
{
    const pid_t self = ::getpid();
    std::vector<ProcessInfo> tree = descendants(self);
    std::vector<ProcessInfo> found;
    for (const ProcessInfo& p : tree)
        if (alive(p)) {
            found.push_back(p);
            ::kill(p.pid, SIGTERM);
            ::kill(p.pid, SIGCONT);
        }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(graceSeconds);
    while (anyAlive(tree) && std::chrono::steady_clock::now() < deadline) {
        reapOwnZombies(tree);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        tree = descendants(self);
    }
    for (int round = 0; round < kKillRounds && !tree.empty(); ++round) {
        for (const ProcessInfo& p : tree)
            if (alive(p))
                ::kill(p.pid, SIGKILL);
        reapOwnZombies(tree);
        std::this_thread::sleep_for(std::chrono::milliseconds(kKillRoundMs));
        reapOwnZombies(tree);
        tree = descendants(self);
    }
    return found;
}

void killTree(pid_t root)
{
    if (root <= 0)
        return;
    ::kill(root, SIGSTOP);
    for (int round = 0; round < kKillRounds; ++round) {
        const std::vector<ProcessInfo> tree = descendants(root);
        if (!anyAlive(tree))
            break;
        for (const ProcessInfo& p : tree)
            if (alive(p))
                ::kill(p.pid, SIGKILL);
        std::this_thread::sleep_for(std::chrono::milliseconds(kKillRoundMs));
    }
    ::kill(root, SIGKILL);
}

void signalTree(pid_t root, int signalNumber)
{
    if (root <= 0)
        return;
    ::kill(root, signalNumber);
    for (const ProcessInfo& p : descendants(root))
        if (alive(p))
            ::kill(p.pid, signalNumber);
}

} // namespace pitwall::sched_internal
