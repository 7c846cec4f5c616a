#include "core/plugin/enginemodule.h"

#include "core/plugin/plugin.h"
#include "core/util/error.h"
#include "core/util/filewrite.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace pitwall {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModuleName = "pitwall_cli_engine.so";
constexpr const char* kIndexName = "engine-commands.tsv";

fs::path moduleFolder()
{
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    return self.parent_path().parent_path() / "lib" / "pitwall";
}

fs::path modulePath()
{
    if (const char* over = std::getenv("PITWALL_ENGINE_MODULE"); over && *over)
        return over;
    return moduleFolder() / kModuleName;
}

} // namespace

bool needsEngine(const cmdline::CommandTree& cli, const std::string& word)
{
    return !word.empty() && word[0] != '-' && word != "help" && !cli.knows(word);
}

bool loadEngineCommands(cmdline::CommandTree& cli, std::string& why)
{
    const fs::path path = modulePath();
    std::error_code error;
    if (!fs::exists(path, error)) {
        why = "this Pitwall was built without the training engine (no " + path.string() + ")";
        return false;
    }
    // RTLD_GLOBAL: the model plugins that the engine loads later resolve against the same LibTorch.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!module) {
        const char* text = dlerror();
        why = "cannot load the engine module " + path.string() + ": " + (text ? text : "unknown error");
        return false;
    }
    using BuildFunction = const char* (*)();
    using AddFunction = void (*)(cmdline::CommandTree&);
    auto build = reinterpret_cast<BuildFunction>(dlsym(module, "pitwall_engine_module_build"));
    auto add = reinterpret_cast<AddFunction>(dlsym(module, "pitwall_add_engine_commands"));
    if (!build || !add) {
        why = path.string() + " is not a Pitwall engine module (its entry points are missing)";
        return false;
    }
    if (std::string(build()) != pitwallBuildId()) {
        why = path.string() + " belongs to another build (" + build() + "; this pitwall is " + pitwallBuildId() +
              "): rebuild both, the C++ interface between them must match";
        return false;
    }
    add(cli);
    return true;
}

void listEngineCommands(cmdline::CommandTree& cli)
{
    std::ifstream in(moduleFolder() / kIndexName);
    std::string line;
    while (std::getline(in, line)) {
        const auto tab = line.find('\t');
        if (tab != std::string::npos)
            cli.addListed(line.substr(0, tab), line.substr(tab + 1));
    }
}

int writeEngineIndex(const cmdline::CommandTree& cli, std::size_t firstEngineCommand, const std::string& file)
{
    std::string index;
    for (std::size_t i = firstEngineCommand; i < cli.commands().size(); ++i)
        if (const cmdline::Command& c = cli.commands()[i]; !c.hidden)
            index += c.path + '\t' + c.summary + '\n';
    try {
        writeFileAtomically(file, index);
    } catch (const RuntimeError& e) {
        std::cerr << "pitwall: " << e.what() << "\n";
        return cmdline::kExitFailure;
    }
    return cmdline::kExitOk;
}

} // namespace pitwall
