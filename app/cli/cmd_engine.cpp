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
    return printReport(args, engineInfoJson(engine), engineInfoText(engine));
}
} // namespace

void addEngineInfoCommand(Cli& cli)
{
    cli.add({.path = "engine info", .options = {jsonOption()}, .run = engineInfoCommand});
}

} // namespace pitwall::cli
