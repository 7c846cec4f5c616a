#pragma once
// Errors that reach the user. Every failure that comes from outside input (files, overrides, command
// lines, databases) is an InputError with one diagnostic per problem; the CLI prints them and exits 2.
// RuntimeError is for failures of the environment (disk, database busy beyond retries); exit 1.

#include <stdexcept>
#include <string>
#include <vector>

namespace pitwall {

// Where in an input a problem was found. line and column are 1-based; 0 means "not known".
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;

    bool known() const { return !file.empty(); }
    // "file:line:column", "file:line", "file", or "" when unknown.
    std::string toString() const;
};

struct Diagnostic {
    SourceLocation where;
    std::string message;
    // The command-line option whose value is wrong ("--trials"), "" when the problem is not one option's: a
    // front end shows the problem at that option's field (core/jobs/jobproblems.h).
    std::string option = {};

    // "where: message" or just the message.
    std::string toString() const;
};

// Bad input: the user must change something. Exit status 2.
class InputError : public std::runtime_error {
public:
    explicit InputError(std::string message);
    InputError(SourceLocation where, std::string message);
    explicit InputError(std::vector<Diagnostic> diagnostics);

    // Bad input in the value of one option: `option` is its name without the dashes ("trials").
    static InputError forOption(const std::string& option, std::string message);

    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

private:
    std::vector<Diagnostic> m_diagnostics;
};

// Failure of the environment or of an operation that should have worked. Exit status 1.
class RuntimeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace pitwall
