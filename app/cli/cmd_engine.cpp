// pitwall engine info: what the linked LibTorch can do (in the engine module: it loads LibTorch).
#include "app/cli/cli.h"

#include "core/engine/engineinforeport.h"

#include <cstdio>
#include <iostream>

namespace pitwall::cli {

namespace {
int engineInfoCommand(const Args& args)
{
    const EngineInfo engine = engineInfo();
    if (args.flag("json"))
        std::cout << engineInfoJson(engine).dump(2) << "\n";
    else
        std::fputs(engineInfoText(engine).c_str(), stdout);
    return kExitOk;
}
} // namespace

void addEngineInfoCommand(Cli& cli)
{
    cli.add({"engine info", "the LibTorch this Pitwall trains with: version, GPUs it sees, threads", "[--json]", "",
             {jsonOption()}, engineInfoCommand});
}

} // namespace pitwall::cli
