#include "core/util/error.h"

namespace pitwall {

namespace {
std::string joinDiagnostics(const std::vector<Diagnostic>& diagnostics)
{
    std::string text;
    for (const Diagnostic& d : diagnostics) {
        if (!text.empty())
            text += '\n';
        text += d.toString();
    }
    return text;
}
} // namespace

std::string SourceLocation::toString() const
{
    if (file.empty())
        return {};
    std::string text = file;
    if (line > 0) {
        text += ':' + std::to_string(line);
        if (column > 0)
            text += ':' + std::to_string(column);
    }
    return text;
}

std::string Diagnostic::toString() const
{
    const std::string place = where.toString();
    return place.empty() ? message : place + ": " + message;
}

InputError::InputError(std::string message)
    : InputError(std::vector<Diagnostic>{Diagnostic{{}, std::move(message)}})
{
}

InputError::InputError(SourceLocation where, std::string message)
    : InputError(std::vector<Diagnostic>{Diagnostic{std::move(where), std::move(message)}})
{
}

InputError InputError::forOption(const std::string& option, std::string message)
{
    return InputError(std::vector<Diagnostic>{Diagnostic{{}, std::move(message), "--" + option}});
}

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(joinDiagnostics(diagnostics)), m_diagnostics(std::move(diagnostics))
{
}

} // namespace pitwall
