#include "core/util/cancel.h"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace pitwall {

namespace {
std::atomic<int> g_policy{static_cast<int>(InterruptPolicy::Command)};
std::atomic<int> g_signals{0};
std::atomic<int> g_interrupts{0}; // SIGINTs only, for the worker policy

[[noreturn]] void stopNow()
{
    // Only async-signal-safe calls from here on.
    if (::getpgrp() == ::getpid()) {
        ::signal(SIGKILL, SIG_DFL);
        ::kill(0, SIGKILL); // the whole group, this process last
    }
    std::_Exit(130);
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
