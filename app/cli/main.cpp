// pitwall: the headless command line (no Qt). Each command group lives in its own file beside this one.
#include "app/cli/cli.h"

int main(int argc, char** argv)
{
    pitwall::cli::Cli cli;
    pitwall::cli::addConfigCommands(cli);
    pitwall::cli::addDbCommands(cli);
    pitwall::cli::addDeviceCommands(cli);
    pitwall::cli::addPluginCommands(cli);
    pitwall::cli::addStudyCommands(cli);
#ifdef PITWALL_HAVE_ENGINE
    pitwall::cli::addTrainCommands(cli);
    pitwall::cli::addBenchCommands(cli);
    pitwall::cli::addDataCommands(cli);
#endif
    return cli.run(argc, argv);
}
