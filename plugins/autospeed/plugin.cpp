// The AutoSpeed-lite plugin's entry points: plugin info, the trainer's plan and the model factory.
#include "autospeed.h"

// Name, kind and description come from CMakeLists.txt, which writes them into the manifest too.
PITWALL_DECLARE_PLUGIN_FROM_BUILD()

PITWALL_DECLARE_MODEL_PLAN(pitwall::autospeed::declarePlan)

extern "C" __attribute__((visibility("default"))) pitwall::engine::Model*
pitwall_create_model(const pitwall::ResolvedConfig* config, const pitwall::engine::DataSpec* spec)
{
    return pitwall::autospeed::createAutoSpeedModel(*config, *spec);
}
