#include "core/shell/shellhelp.h"

#include "core/config/schema.h"
#include "core/store/store.h"
#include "core/util/cmdcomplete.h"
#include "core/util/filewrite.h"
#include "core/util/manpage.h"
#include "core/util/strings.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

namespace pitwall {

namespace fs = std::filesystem;

int writeManPages(const cmdline::CommandTree& cli, const std::string& folder)
{
    const cmdline::ProgramInfo& program = cli.program();
    const cmdline::ManPageInfo info{program.name, program.version, cmdline::manPageDate()};
    try {
        fs::create_directories(folder);
        writeFileAtomically(fs::path(folder) / (program.name + ".1"),
                     cmdline::overviewManPage(info, program.tagline, program.notes, cli.commands()));
        int pages = 1;
        for (const cmdline::Command& command : cli.commands()) {
            if (command.hidden)
                continue;
            writeFileAtomically(fs::path(folder) / (cmdline::manPageName(program.name, command.path) + ".1"),
                                cmdline::commandManPage(info, command));
            ++pages;
        }
        std::cout << "pitwall: " << pages << " man pages in " << folder << "\n";
        return cmdline::kExitOk;
    } catch (const std::exception& e) {
        std::cerr << "pitwall: writing the man pages failed: " << e.what() << "\n";
        return cmdline::kExitFailure;
    }
}

namespace {

bool mentions(const std::string& text, const std::string& word) { return text.find(word) != std::string::npos; }

// The study names of the command's database (its --db, else the default), read only; none when there is no
// such file or it cannot be read.
std::vector<std::string> studyNames(const cmdline::Args& args)
{
    std::vector<std::string> names;
    try {
        const std::string location = args.database();
        std::error_code error;
        if (!fs::is_regular_file(location, error))
            return names;
        const auto store = openStore(location, OpenMode::ReadOnly);
        for (const StudySummary& summary : store->listStudies())
            names.push_back(summary.study.name);
    } catch (const std::exception&) {
        // completion stays quiet: the command itself will say what is wrong
    }
    return names;
}

// Config keys at the depth the prefix reaches: "training." for "tr", "training.optimization.batch_size=" for
// "training.optimization.b".
std::vector<std::string> configKeys(const std::string& prefix)
{
    std::set<std::string> out;
    const Schema schema = loadSchema();
    for (const std::string& key : schema.keyNames()) {
        if (!startsWith(key, prefix))
            continue;
        const std::size_t dot = key.find('.', prefix.size());
        out.insert(dot == std::string::npos ? key + "=" : key.substr(0, dot + 1));
    }
    return {out.begin(), out.end()};
}

// The entries of the prefix's folder that start with it (folders with '/'), offered beside config keys so that a
// config file and an override can both be completed at the same place.
std::vector<std::string> fileNames(const std::string& prefix)
{
    std::vector<std::string> out;
    const fs::path typed(prefix);
    const fs::path folder = typed.has_parent_path() ? typed.parent_path() : fs::path(".");
    const std::string start = typed.has_parent_path() ? typed.filename().string() : prefix;
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (!startsWith(name, start) || (start.empty() && startsWith(name, ".")))
            continue;
        const std::string shown = typed.has_parent_path() ? (typed.parent_path() / name).string() : name;
        out.push_back(shown + (it->is_directory(error) ? "/" : ""));
    }
    return out;
}

std::vector<std::string> valuesAt(const cmdline::CompletionContext& at)
{
    if (at.option) {
        const std::string& name = at.option->name;
        if (name == "study")
            return studyNames(at.args);
        if (name == "direction")
            return {"minimize", "maximize"};
        if (name == "view")
            return {"studies", "configure", "live", "study", "compare", "benchmarks"};
        return {}; // files, or a value only the user knows
    }
    if (!at.command || !mentions(at.command->usage, "dotted.key=value") || mentions(at.prefix, "/") ||
        mentions(at.prefix, "="))
        return {};
    std::vector<std::string> out = configKeys(at.prefix);
    for (std::string& file : fileNames(at.prefix))
        out.push_back(std::move(file));
    return out;
}

} // namespace

int printCompletions(const cmdline::CommandTree& cli, int index, const std::vector<std::string>& words)
{
    if (index < 0)
        return cmdline::kExitOk;
    try {
        for (const std::string& candidate :
             cmdline::completeWords(cli.commands(), words, static_cast<std::size_t>(index), valuesAt))
            std::cout << candidate << "\n";
    } catch (const std::exception&) {
        // nothing to offer
    }
    return cmdline::kExitOk;
}

} // namespace pitwall
