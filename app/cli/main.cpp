// pitwall: the headless command line (no Qt). Each command group lives in its own file beside this one; the
// commands that train or evaluate live in the engine module, loaded only when one of them runs.
#include "app/cli/cli.h"
#include "core/plugin/enginemodule.h"
#include "core/shell/shellhelp.h"
#include "core/store/pglocation.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

int main(int argc, char** argv)
{
    // Training frees and re-allocates the same large buffers every step; keeping them mapped instead of
    // returning them to the kernel saves the page faults (about 6 % CPU per step, measured).
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    using namespace pitwall::cli;
    using namespace pitwall;
    Cli cli = makePitwallCli();
    addConfigCommands(cli);
    addDbCommands(cli);
    addDeviceCommands(cli);
    addPluginCommands(cli);
    addStudyCommands(cli);
    addJobCommands(cli);
    addDataCommands(cli); // the synthetic world is plain C++ (core/synth): no LibTorch

    // Before anything runs: the workers and jobs this process starts, and its records, carry no password.
    std::vector<std::string> words(argv, argv + argc);
    moveDatabasePasswordsToEnvironment(words);
    std::vector<char*> pointers;
    for (std::string& word : words)
        pointers.push_back(word.data());
    pointers.push_back(nullptr);
    argv = pointers.data();

    const std::string first = argc > 1 ? argv[1] : "";
    std::string why;
    if (first == "internal-write-engine-index" && argc == 3) { // run by the build, beside the module
        const std::size_t before = cli.commands().size();
        if (!loadEngineCommands(cli, why)) {
            std::cerr << "pitwall: " << why << "\n";
            return kExitFailure;
        }
        return writeEngineIndex(cli, before, argv[2]);
    }
    if (first == "internal-write-man-pages" && argc == 3) { // run by the build (cmake/PitwallInstall.cmake)
        if (!loadEngineCommands(cli, why))
            std::cerr << "pitwall: the man pages leave out the engine's commands: " << why << "\n";
        return writeManPages(cli, argv[2]);
    }
    if (first == "internal-complete" && argc >= 3) { // run by resources/completion/pitwall
        const std::vector<std::string> words(argv + 3, argv + argc);
        // The engine's commands declare their options in the module: it is loaded only to complete one of them.
        if (!(words.size() > 1 && needsEngine(cli, words[0]) && loadEngineCommands(cli, why)))
            listEngineCommands(cli);
        return printCompletions(cli, std::atoi(argv[2]), words);
    }
    if (needsEngine(cli, first)) {
        if (!loadEngineCommands(cli, why))
            std::cerr << "pitwall: " << why << "\n";
    } else {
        listEngineCommands(cli);
    }
    return cli.run(argc, argv);
}
