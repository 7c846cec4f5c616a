#pragma once
// The exit statuses of Pitwall's processes (`pitwall`, its workers and jobs), the one home of these numbers.
// Scripts, CI and the job records read them, and a job's state follows them (core/jobrun/jobsession.h).

namespace pitwall {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;     // the work failed (RuntimeError: the environment, a crash, ...)
inline constexpr int kExitBadInput = 2;    // bad input or usage (InputError): the message says what to change
inline constexpr int kExitCancelled = 130; // cancelled or interrupted (128 + SIGINT, as a shell reports it)

} // namespace pitwall
