// One source, three plugins: a good one, one built for another ABI, one without the info symbol.
#include "core/plugin/plugin.h"

#if defined(TEST_PLUGIN_GOOD)
PITWALL_DECLARE_PLUGIN("good", pitwall::PluginKind::Runner, "a plugin that loads")
extern "C" __attribute__((visibility("default"))) int pitwall_test_answer() { return 42; }
#elif defined(TEST_PLUGIN_WRONG_ABI)
extern "C" __attribute__((visibility("default"))) const pitwall::PluginInfo* pitwall_plugin_info()
{
    static const pitwall::PluginInfo info{pitwall::kPluginAbiVersion + 99, "wrong_abi", pitwall::PluginKind::Model, ""};
    return &info;
}
#else
extern "C" __attribute__((visibility("default"))) int something_else() { return 0; }
#endif
