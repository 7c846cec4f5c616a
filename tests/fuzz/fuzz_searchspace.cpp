// Fuzz target: a search space in AutoSpeed's YAML format, bare names resolved in the model plugins' sections.
// Promises checked: every fixed value, every categorical choice and both bounds of a numeric range are values
// the schema accepts as overrides (what the sampler hands to ResolvedConfig::setFromText).
#include "fuzzschema.h"
#include "fuzztarget.h"

#include "core/config/config.h"
#include "core/hpo/searchspace.h"
#include "core/util/strings.h"

using namespace pitwall;

namespace {

void checkAccepted(ResolvedConfig& config, const SpaceParam& p, const std::string& text)
{
    try {
        config.setFromText(p.configKey, text, ValueOrigin{OriginKind::Program, {}, "search space"});
    } catch (const InputError& e) {
        PITWALL_FUZZ_CHECK(false, p.name + " -> " + p.configKey + "=" + text + ": " + e.what());
    }
}

} // namespace

PITWALL_FUZZ_TARGET
{
    const std::string yaml = fuzz::text(data, size);
    static const std::vector<std::string> sections = [] {
        std::vector<std::string> s = ownerSections(fuzz::fuzzSchema(), "autospeed");
        for (const std::string& t : ownerSections(fuzz::fuzzSchema(), "transfuser"))
            s.push_back(t);
        return s;
    }();
    return fuzz::runInput([&] {
        const SearchSpace space = SearchSpace::parse(yaml, "fuzz_space.yaml", fuzz::fuzzSchema(), sections);
        ResolvedConfig config(fuzz::fuzzSchema());
        for (const SpaceParam& p : space.params()) {
            if (p.type == SpaceParamType::Fixed)
                checkAccepted(config, p, p.fixedText);
            else if (p.type == SpaceParamType::Categorical)
                for (const Json& value : p.values)
                    checkAccepted(config, p, overrideText(value));
            else
                for (const double bound : {p.low, p.high})
                    checkAccepted(config, p, formatDouble(bound));
            if (p.searched())
                (void)p.distribution();
        }
        (void)space.requests();
        (void)space.overrides(Json::object());
    });
}
