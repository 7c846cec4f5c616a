#include "core/hpo/tellrequest.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <cmath>

namespace pitwall {

double parseReportedValue(const std::string& text, const std::string& what, const TellWarning& warn)
{
    const auto value = parseDouble(text);
    if (!value)
        throw InputError(what + " '" + text + "' is not a number");
    if (std::isinf(*value) && toLower(text).find("inf") == std::string::npos && warn)
        warn(what + " '" + text + "' is beyond the range of a double; it is stored as " + formatDouble(*value));
    return *value;
}

TellRequest parseTellRequest(const std::vector<std::string>& intermediate, const std::vector<std::string>& values,
                             const std::vector<std::string>& constraints, const std::optional<std::string>& state,
                             const TellWarning& warn)
{
    TellRequest request;
    for (const std::string& item : intermediate) {
        const auto eq = item.find('=');
        const auto step = eq == std::string::npos ? std::nullopt : parseInteger(item.substr(0, eq));
        if (!step || *step < 0)
            throw InputError("--intermediate '" + item + "' is not STEP=VALUE with an integer step >= 0");
        std::vector<double> values;
        for (const std::string& text : split(item.substr(eq + 1), ','))
            values.push_back(parseReportedValue(text, "--intermediate value", warn));
        request.intermediate.emplace_back(*step, std::move(values));
    }
    for (const std::string& value : values)
        request.values.push_back(parseReportedValue(value, "--value", warn));
    for (const std::string& constraint : constraints) {
        const double c = parseReportedValue(constraint, "--constraint", warn);
        if (std::isnan(c))
            throw InputError("--constraint '" + constraint + "' is NaN; a constraint is a number, feasible when <= 0");
        request.constraints.push_back(c);
    }
    if (state) {
        request.state = parseTrialState(*state);
        if (!request.state || *request.state == TrialState::Running || *request.state == TrialState::Waiting)
            throw InputError("--state '" + *state + "' is not complete, pruned or fail");
    }
    const bool hasValues = !request.values.empty();
    if (hasValues && request.state && *request.state != TrialState::Complete)
        throw InputError("--value goes with a complete trial; a " + toLower(trialStateName(*request.state)) +
                         " trial takes no value (a pruned one gets its last intermediate value)");
    if (hasValues && !request.state)
        request.state = TrialState::Complete;
    if (request.state == TrialState::Complete && !hasValues)
        throw InputError("--state complete needs --value V");
    if (!request.constraints.empty() && request.state != TrialState::Complete)
        throw InputError("--constraint goes with a complete trial (--value V); constraints of a trial that did not "
                         "complete are never read");
    if (!request.state && request.intermediate.empty())
        throw InputError("nothing to tell: give --value V, --state fail|pruned, or --intermediate STEP=VALUE");
    return request;
}

TellRequest parseTellRequest(const std::vector<std::string>& intermediate, const std::optional<std::string>& value,
                             const std::optional<std::string>& state, const TellWarning& warn)
{
    return parseTellRequest(intermediate, value ? std::vector<std::string>{*value} : std::vector<std::string>{}, {},
                            state, warn);
}

} // namespace pitwall
