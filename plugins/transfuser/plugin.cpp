// The TransFuser-lite plugin's entry points.
#include "transfuser.h"

PITWALL_DECLARE_PLUGIN("transfuser", pitwall::PluginKind::Model,
                       "TransFuser-lite: camera + LiDAR fusion, perception heads and planning")

extern "C" __attribute__((visibility("default"))) pitwall::engine::Model*
pitwall_create_model(const pitwall::ResolvedConfig* config, const pitwall::engine::DataSpec* spec)
{
    return pitwall::transfuser::createTransfuserModel(*config, *spec);
}
