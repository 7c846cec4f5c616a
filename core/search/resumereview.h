#pragma once
// A results file is input, not a program: resuming a search runs the trial command stored in it and writes into
// the folders stored in it. Before `pitwall hpo --resume` or `pitwall jobs resume` does that, it shows what will
// run (command, log folder, best-parameters file) and goes on by itself only when this user started or confirmed
// exactly that on this machine; otherwise the user confirms with --yes (the window: a dialog). What a user
// confirmed (or started with a new search) is kept per user, outside any results file, in
// $XDG_STATE_HOME/pitwall/confirmed-resumes.jsonl (default ~/.local/state/pitwall/), created 0600: an edited or
// shared results file cannot mark its own command as confirmed.

#include "core/store/jobstore.h"
#include "core/store/store.h"

#include <optional>
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

// What `pitwall jobs resume` (and the window's Resume) would run for `job`: nullopt for a training job (Pitwall's
// trainer on its checkpoints), else the review of its search's study in the job's database (`defaultDb` when the
// record names none). InputError for a record whose resume command is not of its kind (an edited jobs table: a
// "train" job that would run another command) and for a database that is gone.
std::optional<ResumeReview> reviewJobResume(const JobRecord& job, const std::string& defaultDb);

// `pitwall jobs resume` before it requeues `job`: a review that is not confirmed throws throwUnconfirmedResume's
// error, unless `confirmed` (--yes), which records the confirmation (so that the detached `hpo --resume` goes on);
// RuntimeError when it cannot be recorded.
void checkJobResume(const JobRecord& job, const std::string& defaultDb, bool confirmed);

// Records the command and folders as confirmed by this user. Best effort: returns a warning ("" when recorded)
// rather than failing a search because the state folder cannot be written.
std::string recordConfirmed(const std::string& command, const std::string& logDir, const std::string& bestParamsPath);

// The file confirmations are kept in.
std::string confirmedResumesPath();

} // namespace pitwall
