// Fuzz target: a plugin schema file (`<plugin>.schema.yaml`, read from the plugin folder without loading the
// plugin, so any file there is outside input). Promise checked: every key it declares accepts its own default.
#include "fuzztarget.h"

#include "core/config/schema.h"

using namespace pitwall;

PITWALL_FUZZ_TARGET
{
    const std::string yaml = fuzz::text(data, size);
    return fuzz::runInput([&] {
        Schema schema;
        schema.addFromYaml(yaml, "fuzz.schema.yaml");
        for (const KeySpec& spec : schema.keys())
            PITWALL_FUZZ_CHECK(spec.check(spec.defaultValue).empty(), spec.key + ": " + spec.check(spec.defaultValue));
        (void)schema.toJson();
    });
}
