// pitwall data synth | pitwall data info
#include "app/cli/cli.h"

#include "core/synth/datasetreport.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace pitwall::cli {

namespace {

namespace fs = std::filesystem;

int synthesize(const Args& args)
{
    const auto out = args.value("out");
    if (!out)
        throw InputError("give the dataset folder with --out DIR");
    const synth::SynthOptions options = synth::synthOptionsFromArgs(args);
    synth::validateSynthOptions(options);
    std::error_code ec;
    if (fs::exists(*out, ec)) {
        if (!fs::is_directory(*out, ec))
            throw InputError(SourceLocation{*out}, "exists and is not a folder");
        if (!fs::is_empty(*out, ec) && !args.flag("force"))
            throw InputError(SourceLocation{*out}, "folder is not empty; pass --force to write into it");
    }

    const ProgressReporter progress =
        synth::decileProgress(options.frames, [](const std::string& line) { std::fputs(line.c_str(), stderr); });
    std::fprintf(stderr, "writing %d frames (%d per episode, seed %llu) to %s\n", options.frames, options.episodeFrames,
                 static_cast<unsigned long long>(options.seed), out->c_str());
    const synth::GenerationStats stats = synth::writeSynthDataset(*out, options, progress);
    printReport(args, synth::generationJson(*out, stats), synth::generationText(*out, stats));
    return stats.complete ? kExitOk : kExitFailure;
}

int showInfo(const Args& args)
{
    if (args.positionals.size() != 1)
        throw InputError("give one dataset folder");
    const synth::SynthDataset dataset = synth::SynthDataset::open(args.positionals[0]);
    int checked = 0;
    if (args.flag("check")) {
        for (int i = 0; i < dataset.frameCount(); ++i, ++checked)
            dataset.readFrame(i); // throws InputError naming the first bad file
    }
    return printReport(args, synth::datasetInfoJson(dataset, checked),
                       synth::datasetInfoText(dataset, args.flag("check"), checked));
}

} // namespace

void addDataCommands(Cli& cli)
{
    std::vector<OptionSpec> synthOptions{{"out", "DIR", "dataset folder to write (created if missing)"}};
    for (const OptionSpec& o : synth::synthKeyOptions())
        synthOptions.push_back(o);
    synthOptions.push_back({"force", "", "write into a folder that is not empty"});
    synthOptions.push_back(jsonOption());
    cli.add({.path = "data synth", .options = synthOptions, .run = synthesize});
    cli.add({.path = "data info", .options = {{"check", "", "decode every frame"}, jsonOption()}, .run = showInfo});
}

} // namespace pitwall::cli
