#include "core/util/cancel.h"
#include "core/util/exitcodes.h"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace pitwall {

namespace {
std::atomic<int> g_policy{static_cast<int>(InterruptPolicy::Command)};
std::atomic<int> g_signals{0};
std::atomic<int> g_interrupts{0}; // SIGINTs only, for the worker policy
constexpr int kMaxChildren = 256;
std::atomic<int> g_children[kMaxChildren]; // 0: free; a pid, or -pgid

[[noreturn]] void stopNow()
{
    // Only async-signal-safe calls from here on.
    for (auto& child : g_children)
        if (const int target = child.load(); target != 0)
            ::kill(target, SIGKILL);
    if (::getpgrp() == ::getpid()) {
        ::signal(SIGKILL, SIG_DFL);
        ::kill(0, SIGKILL); // the whole group, this process last
    }
    std::_Exit(kExitCancelled);
}

void onSignal(int signalNumber)
{
    const bool worker = g_policy.load() == static_cast<int>(InterruptPolicy::Worker);
    const bool second = worker ? (signalNumber == SIGINT && g_interrupts.fetch_add(1) >= 1) : g_signals.fetch_add(1) >= 1;
    if (second)
        stopNow();
    processCancelToken().request();
}
} // namespace

void rememberChildForImmediateStop(int target)
{
    for (auto& child : g_children) {
        int expected = 0;
        if (child.compare_exchange_strong(expected, target))
            return;
    }
}

void forgetChildForImmediateStop(int target)
{
    for (auto& child : g_children) {
        int expected = target;
        if (child.compare_exchange_strong(expected, 0))
            return;
    }
}

CancelToken& processCancelToken()
{
    static CancelToken token;
    return token;
}

void installInterruptHandlers(InterruptPolicy policy)
{
    processCancelToken(); // constructed before any handler can run
    g_policy = static_cast<int>(policy);
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

} // namespace pitwall
