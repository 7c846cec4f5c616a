#include "core/synth/datasetreport.h"

#include "core/config/configargs.h"
#include "core/util/printf.h"
#include "core/util/strings.h"

#include <algorithm>
#include <memory>

namespace pitwall::synth {

namespace {

// Command-line options that are shorthands for data.synthetic.* keys.
struct OptionKey {
    const char* option;
    const char* key;
    const char* valueName;
    const char* help;
};

const OptionKey kSynthKeys[] = {
    {"frames", "frames", "N", "frames to write (data.synthetic.frames, default 1000)"},
    {"seed", "seed", "S", "seed; the same seed gives the same bytes (default 0)"},
    {"episode-frames", "episode_frames", "N", "frames per episode, each a new road and traffic (default 50)"},
    {"width", "image_width", "W", "camera image width in pixels (default 256)"},
    {"height", "image_height", "H", "camera image height in pixels (default 96)"},
    {"fov", "camera_fov_deg", "DEG", "camera horizontal field of view (default 90)"},
    {"bev-width", "bev_width", "W", "BEV grid cells along x, forward (default 96)"},
    {"bev-height", "bev_height", "H", "BEV grid cells along y, lateral (default 80)"},
    {"pixels-per-meter", "pixels_per_meter", "P", "BEV resolution (default 2)"},
    {"threads", "threads", "N", "episodes generated in parallel, 0 = one per core (default 1)"},
};

double framesPerSecond(const GenerationStats& stats)
{
    return stats.seconds > 0 ? stats.frames / stats.seconds : 0.0;
}

} // namespace

std::vector<cmdline::OptionSpec> synthKeyOptions()
{
    std::vector<cmdline::OptionSpec> options;
    for (const OptionKey& o : kSynthKeys)
        options.push_back({o.option, o.valueName, o.help});
    return options;
}

SynthOptions synthOptionsFromArgs(const cmdline::Args& args)
{
    std::vector<std::string> files, overrides;
    splitConfigArgs(args, files, overrides);
    for (const OptionKey& o : kSynthKeys)
        if (auto value = args.value(o.option))
            overrides.push_back(std::string("data.synthetic.") + o.key + "=" + *value);
    const Schema schema = schemaWithWarnings();
    return synthOptionsFromConfig(resolveConfig(schema, files, overrides));
}

nlohmann::json generationJson(const std::string& dir, const GenerationStats& stats)
{
    return {{"dir", dir},
            {"frames", stats.frames},
            {"episodes", stats.episodes},
            {"seconds", stats.seconds},
            {"frames_per_second", framesPerSecond(stats)},
            {"bytes", stats.bytes},
            {"complete", stats.complete}};
}

std::string generationText(const std::string& dir, const GenerationStats& stats)
{
    return stringPrintf("wrote %d frames in %d episodes to %s: %.2f s, %.1f frames/s, %s\n", stats.frames,
                        stats.episodes, dir.c_str(), stats.seconds, framesPerSecond(stats),
                        formatBytes(static_cast<double>(stats.bytes)).c_str());
}

ProgressReporter decileProgress(int frames, std::function<void(const std::string&)> line)
{
    const auto start = std::chrono::steady_clock::now();
    const int step = std::max(1, frames / 10);
    auto nextReport = std::make_shared<int>(step);
    ProgressReporter reporter;
    reporter.onProgress = [=](const ProgressReport& report) {
        const int done = static_cast<int>(report.done), total = static_cast<int>(report.total);
        if (done < *nextReport && done != total)
            return;
        while (*nextReport <= done)
            *nextReport += step;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        line(stringPrintf("  [%3d%%] %d/%d frames, %.1f frames/s\n", 100 * done / total, done, total,
                          seconds > 0 ? done / seconds : 0.0));
    };
    return reporter;
}

nlohmann::json datasetInfoJson(const SynthDataset& dataset, int framesChecked)
{
    const DatasetInfo& info = dataset.info();
    return {{"dir", dataset.directory()},
            {"frames", info.frames},
            {"episode_frames", info.episodeFrames},
            {"seed", info.seed},
            {"generator_version", info.generatorVersion},
            {"image", {info.sensors.camera.width, info.sensors.camera.height}},
            {"bev", {info.sensors.bev.width, info.sensors.bev.height}},
            {"frames_checked", framesChecked}};
}

std::string datasetInfoText(const SynthDataset& dataset, bool checked, int framesChecked)
{
    const DatasetInfo& info = dataset.info();
    std::string text = stringPrintf("%s: %d frames (%d per episode), seed %llu, generator version %d\n",
                                    dataset.directory().c_str(), info.frames, info.episodeFrames,
                                    static_cast<unsigned long long>(info.seed), info.generatorVersion);
    text +=
        stringPrintf("  camera %dx%d, %.0f deg; BEV %dx%d at %.2f px/m from x = %.1f m\n", info.sensors.camera.width,
                     info.sensors.camera.height, info.sensors.camera.horizontalFovDeg, info.sensors.bev.width,
                     info.sensors.bev.height, info.sensors.bev.pixelsPerMeter, info.sensors.bev.xMinM);
    if (checked)
        text += stringPrintf("  all %d frames decode\n", framesChecked);
    return text;
}

} // namespace pitwall::synth
