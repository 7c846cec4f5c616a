// Fuzz target: a YAML experiment config layered over the schema, then `dotted.key=value` overrides.
// Input: YAML text; after a line "#--overrides--" every further line is one override (a YAML comment, so a seed
// stays a readable config). Includes resolve in configs/transfuser/ (seeds include baseline.yaml); an input that
// names a device or kernel file is skipped, since reading /dev/zero as an include is not the parser's problem.
// Promise checked: a config that resolves writes YAML that resolves to the same values (ResolvedConfig::toYaml).
#include "fuzzschema.h"
#include "fuzztarget.h"

#include "core/config/config.h"
#include "core/util/strings.h"

using namespace pitwall;

PITWALL_FUZZ_TARGET
{
    const std::string input = fuzz::text(data, size);
    for (const char* special : {"/dev", "/proc", "/sys"})
        if (input.find(special) != std::string::npos)
            return 0;
    const std::string marker = "#--overrides--\n";
    const auto at = input.find(marker);
    const std::string yaml = input.substr(0, at);
    std::vector<std::string> overrides;
    if (at != std::string::npos)
        for (const std::string& line : split(input.substr(at + marker.size()), '\n'))
            if (!line.empty())
                overrides.push_back(line);
    return fuzz::runInput([&] {
        const ResolvedConfig config = resolveConfigText(fuzz::fuzzSchema(), yaml, "fuzz.yaml", overrides,
                                                        test::sourceFile("/configs/transfuser"));
        const std::string written = config.toYaml(true);
        try {
            const ResolvedConfig again = resolveConfigText(fuzz::fuzzSchema(), written, "written.yaml");
            PITWALL_FUZZ_CHECK(again.toJson() == config.toJson(), written);
        } catch (const InputError& e) {
            PITWALL_FUZZ_CHECK(false, std::string(e.what()) + "\n" + written);
        }
    });
}
