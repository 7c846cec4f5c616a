// pitwall: the headless command line (no Qt). Each command group lives in its own file beside this one.
#include "app/cli/cli.h"

#include <malloc.h>

int main(int argc, char** argv)
{
    // Training frees and re-allocates the same large buffers every step; keeping them mapped instead of
    // returning them to the kernel saves the page faults (about 6 % CPU per step, measured).
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    pitwall::cli::Cli cli;
    pitwall::cli::addConfigCommands(cli);
    pitwall::cli::addDbCommands(cli);
    pitwall::cli::addDeviceCommands(cli);
    pitwall::cli::addPluginCommands(cli);
    pitwall::cli::addStudyCommands(cli);
#ifdef PITWALL_HAVE_ENGINE
    pitwall::cli::addTrainCommands(cli);
    pitwall::cli::addBenchCommands(cli);
    pitwall::cli::addLoaderBenchCommands(cli);
    pitwall::cli::addEvalCommands(cli);
    pitwall::cli::addDataCommands(cli);
    pitwall::cli::addHpoCommands(cli);
    pitwall::cli::addBenchPartitionsCommands(cli);
#endif
    return cli.run(argc, argv);
}
