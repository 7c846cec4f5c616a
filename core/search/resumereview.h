#pragma once
// A results file is input, not a program: resuming a search runs the trial command stored in it and writes into
// the folders stored in it. Before `pitwall hpo --resume` or `pitwall jobs resume` does that, it shows what will
// run (command, log folder, best-parameters file) and goes on by itself only when this user started or confirmed
// exactly that on this machine; otherwise the user confirms with --yes (the window: a dialog). What a user
// confirmed (or started with a new search) is kept per user, outside any results file, in
// $XDG_STATE_HOME/pitwall/confirmed-resumes.jsonl (default ~/.local/state/pitwall/), created 0600: an edited or
// shared results file cannot mark its own command as confirmed.

#include "core/store/store.h"

#include <string>

namespace pitwall {

// The study system attribute holding the absolute best_params.yaml path a search writes (resumes write there too).
inline constexpr const char* kBestParamsAttr = "pitwall:best_params";

struct ResumeReview {
    std::string study;
    std::string command;        // the trial command template; empty: the built-in trainer
    std::string logDir;         // worker and trial logs
    std::string bestParamsPath; // empty when the study does not record one (started before it was recorded)
    bool confirmed = false;     // this user started or confirmed exactly these on this machine

    // "  command: ...\n  logs in: ...\n  best parameters to: ..." (escaped for a terminal).
    std::string describe() const;
};

// What resuming `study` would run; InputError when the study was not started by pitwall hpo.
ResumeReview reviewResume(Store& store, const std::string& study);

// The InputError a resume that is not confirmed stops with: what it would run and how to go on (`resumeWords`:
// the command to repeat with --yes, e.g. "pitwall hpo --resume S --db F").
[[noreturn]] void throwUnconfirmedResume(const ResumeReview& review, const std::string& resumeWords);

// Records the command and folders as confirmed by this user. Best effort: returns a warning ("" when recorded)
// rather than failing a search because the state folder cannot be written.
std::string recordConfirmed(const std::string& command, const std::string& logDir, const std::string& bestParamsPath);

// The file confirmations are kept in.
std::string confirmedResumesPath();

} // namespace pitwall
