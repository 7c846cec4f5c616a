#pragma once
// The problems `pitwall <kind> ... --check --json` reports, each at the field of the job's spec it belongs to, so a
// front end (the window) shows it there without reading the message: {"ok": false, "problems": [{"field": "trials",
// "option": "--trials", "message": "..."}]}.

#include "core/util/cmdline.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pitwall {

// One field of a job's spec and the command-line option that carries it ("" for the positionals).
struct JobField {
    std::string field;  // "trials", "final_epochs", "configs"
    std::string option; // "--trials"; "" for the positionals
};

struct JobProblem {
    std::string field;   // a JobField's field, "" when the problem is none of the fields' (e.g. the database)
    std::string option;  // its option, "" for a positional or none
    std::string message; // "file:line:column: message" where the place is known

    bool operator==(const JobProblem&) const = default;
};

// What a kind's spec declares for its problems: its fields, the field of the positionals' files, and the field a
// problem goes to when it names no option and no file of the job (e.g. a driving check's "run 7 has no
// checkpoint" belongs to the policy).
struct JobFields {
    std::vector<JobField> fields;
    std::string positionalField; // the field whose files are the positionals ("configs", "file"), "" when none
    std::string fallbackField;   // "" when such problems belong to no field
};

// Each diagnostic of `error` at its field: the one whose option the diagnostic names (Diagnostic::option); else the
// one whose file or folder (an option's value in `args`, or a positional) is where it was found; else the fallback.
std::vector<JobProblem> jobProblems(const InputError& error, const JobFields& fields, const cmdline::Args& args);

// {"ok": false, "problems": [{"field", "option", "message"}, ...]}, and back (problems of another document: none).
nlohmann::json jobProblemsJson(const std::vector<JobProblem>& problems);
std::vector<JobProblem> jobProblemsFromJson(const nlohmann::json& document);

// A job's command line (after "pitwall") that runs only its check and prints the problems as above: `--check --json`
// appended. And the one that starts it in the background and prints the job id: `--detach` appended.
std::vector<std::string> checkWords(std::vector<std::string> words);
std::vector<std::string> detachedWords(std::vector<std::string> words);

} // namespace pitwall
