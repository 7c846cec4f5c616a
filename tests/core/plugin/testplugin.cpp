// One source, four plugins: a good one, one built for another ABI, one of another build, one without the info
// symbol.
#if defined(TEST_PLUGIN_OTHER_BUILD)
#undef PITWALL_BUILD_ID
#define PITWALL_BUILD_ID "pitwall 0.0.1, GNU 9.9.9, LibTorch 0.1"
#endif
#include "core/plugin/plugin.h"

#if defined(TEST_PLUGIN_GOOD)
PITWALL_DECLARE_PLUGIN("good", pitwall::PluginKind::Runner, "a plugin that loads")
extern "C" __attribute__((visibility("default"))) int pitwall_test_answer() { return 42; }
#elif defined(TEST_PLUGIN_OTHER_BUILD)
PITWALL_DECLARE_PLUGIN("other_build", pitwall::PluginKind::Runner, "a plugin of another build")
#elif defined(TEST_PLUGIN_WRONG_ABI)
extern "C" __attribute__((visibility("default"))) const pitwall::PluginInfo* pitwall_plugin_info()
{
    static const pitwall::PluginInfo info{pitwall::kPluginAbiVersion + 99, "wrong_abi", pitwall::PluginKind::Model, "",
                                            PITWALL_BUILD_ID};
    return &info;
}
#else
extern "C" __attribute__((visibility("default"))) int something_else() { return 0; }
#endif
