#include "core/hpo/asktell.h"

#include "core/config/schema.h"
#include "core/hpo/study.h"
#include "core/util/error.h"
#include "core/util/strings.h"

namespace pitwall {

SearchSpace loadAskSpace(const Schema& schema, const std::string& file, const std::optional<std::string>& model)
{
    std::vector<std::string> sections;
    // Without a model the objective may be any black box: a name of no config key is a free parameter.
    SpaceNames names = SpaceNames::FreeAllowed;
    if (model) {
        sections = ownerSections(schema, *model);
        if (sections.empty())
            throw InputError("--model '" + *model + "' declares no config keys (known: " + join(schema.owners(), ", ") +
                             ")");
        names = SpaceNames::ConfigKeysOnly;
    }
    return SearchSpace::load(file, schema, sections, names);
}

std::optional<TrialState> applyTellRequest(Study& study, int number, const TellRequest& request,
                                           const TellWarning& warn)
{
    for (const auto& [step, values] : request.intermediate)
        if (!study.report(number, step, values))
            warn("trial " + std::to_string(number) + " already has a value at step " + std::to_string(step) +
                 "; the new one is ignored (as Optuna does)");
    if (!request.state)
        return std::nullopt;
    const TrialState ended = study.tell(number, *request.state, request.values, request.constraints);
    if (ended != *request.state) {
        std::vector<std::string> values;
        for (double v : request.values)
            values.push_back(formatDouble(v));
        warn("the value " + join(values, ", ") + " is not acceptable; trial " + std::to_string(number) +
             " is FAIL (as Optuna does)");
    }
    return ended;
}

} // namespace pitwall
