// The TransFuser-lite plugin's entry points.
#include "transfuser.h"

// Name, kind and description come from CMakeLists.txt, which writes them into the manifest too.
PITWALL_DECLARE_PLUGIN_FROM_BUILD()

extern "C" __attribute__((visibility("default"))) pitwall::engine::Model*
pitwall_create_model(const pitwall::ResolvedConfig* config, const pitwall::engine::DataSpec* spec)
{
    return pitwall::transfuser::createTransfuserModel(*config, *spec);
}
