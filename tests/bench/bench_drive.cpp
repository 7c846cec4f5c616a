// Closed-loop driving evaluation speed: a trained run's model drives the same routes one after the other (width 1)
// and side by side with one forward pass for all of them (widths 8, 32, ...), in alternating repetitions within
// one process, so every width meets the same machine state. Prints seconds per evaluation (mean ± sd over the
// repetitions), routes per second, the speed-up over width 1, and each width's driving score and its standard
// error (the same routes: the scores agree up to a model's float rounding). Then the frame a model plans from:
// renderSensors (what closed loop uses) against renderFrame (every label too), in alternating blocks.
//
// bench_drive --db FILE --run ID [--routes N=40] [--route-seconds T=30] [--widths 1,8,32] [--reps R=3]
//             [--frames F=300]
//
// Make the run first, e.g.: pitwall train configs/transfuser/smoke.yaml --db /tmp/drive.db  (run 1).
#include "bench_common.h"

#include "core/engine/drive/modelpolicy.h"
#include "core/drive/simulator.h"
#include "core/store/store.h"
#include "core/synth/render.h"
#include "core/synth/world.h"
#include "core/util/error.h"
#include "core/util/strings.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace pitwall;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Options {
    std::string db;
    std::int64_t run = 0;
    int routes = 40;
    double routeSeconds = 30;
    std::vector<int> widths{1, 8, 32};
    int reps = 3;
    int frames = 300;
};

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        const auto number = parseInteger(value);
        if (key == "--db")
            o.db = value;
        else if (key == "--run" && number && *number > 0)
            o.run = *number;
        else if (key == "--routes" && number && *number > 0)
            o.routes = static_cast<int>(*number);
        else if (key == "--route-seconds" && parseDouble(value))
            o.routeSeconds = *parseDouble(value);
        else if (key == "--reps" && number && *number > 0)
            o.reps = static_cast<int>(*number);
        else if (key == "--frames" && number && *number > 0)
            o.frames = static_cast<int>(*number);
        else if (key == "--widths") {
            o.widths.clear();
            for (const std::string& part : split(value, ','))
                if (const auto w = parseInteger(part); w && *w > 0)
                    o.widths.push_back(static_cast<int>(*w));
                else
                    throw InputError("--widths: '" + part + "' is not a positive integer");
        } else
            throw InputError("bad option or value: " + key + " " + value);
    }
    if (o.db.empty() || o.run == 0 || o.widths.empty())
        throw InputError("give --db FILE --run ID (a trained TransFuser-lite run; see the top of bench_drive.cpp)");
    return o;
}

// Seconds per frame of `render` over `frames` world states (the world steps 0.1 s between frames).
template <typename Render>
double renderSeconds(const synth::SensorConfig& sensors, int frames, Render render)
{
    synth::WorldOptions options;
    options.durationS = 60;
    synth::World world = synth::World::create(7, options);
    std::size_t bytes = 0;
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < frames; ++i) {
        bytes += render(world, sensors).rgb.pixels.size();
        world.step(0.05);
        world.step(0.05);
    }
    const double seconds = secondsSince(start);
    if (bytes == 0)
        std::printf("(no pixels)\n");
    return seconds / frames;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        const Options o = parse(argc, argv);
        drive::ModelPolicyOptions modelOptions;
        modelOptions.threads = 1;
        drive::RunModelInfo info;
        std::unique_ptr<drive::DrivingPolicy> policy;
        {
            auto store = openStore(o.db, OpenMode::ReadOnly);
            policy = drive::loadRunPolicy(*store, o.run, modelOptions, &info);
        }
        std::printf("run %lld (%s), %d routes of %.0f s, 1 torch thread, %d repetitions per width\n\n",
                    static_cast<long long>(o.run), info.model.c_str(), o.routes, o.routeSeconds, o.reps);

        std::map<int, std::vector<double>> seconds;
        std::map<int, drive::DrivingReport> reports;
        for (int rep = 0; rep < o.reps; ++rep)
            for (int width : o.widths) {
                drive::DrivingEvalOptions options;
                options.routes = o.routes;
                options.routeSeconds = o.routeSeconds;
                options.routesTogether = width;
                const Clock::time_point start = Clock::now();
                reports[width] = drive::evaluateDriving(*policy, options);
                seconds[width].push_back(secondsSince(start));
            }
        const double reference = benchcommon::summarize(seconds[o.widths.front()]).mean;
        std::printf("%-8s %18s %10s %10s %22s\n", "width", "s per evaluation", "routes/s",
                    ("vs " + std::to_string(o.widths.front())).c_str(), "driving score ± s.e.");
        for (int width : o.widths) {
            const benchcommon::Summary s = benchcommon::summarize(seconds[width]);
            const drive::DrivingReport& r = reports[width];
            std::printf("%-8d %11s ± %-5s %10s %9sx %14s ± %s\n", width, benchcommon::fixed(s.mean, 2).c_str(),
                        benchcommon::fixed(s.sd, 2).c_str(), benchcommon::fixed(o.routes / s.mean, 2).c_str(),
                        benchcommon::fixed(reference / s.mean, 2).c_str(),
                        benchcommon::fixed(r.drivingScore.mean, 3).c_str(),
                        benchcommon::fixed(r.drivingScore.standardError, 3).c_str());
        }

        std::vector<double> full, sensors;
        for (int rep = 0; rep < o.reps; ++rep) {
            full.push_back(renderSeconds(info.sensors, o.frames, synth::renderFrame));
            sensors.push_back(renderSeconds(info.sensors, o.frames, synth::renderSensors));
        }
        const benchcommon::Summary f = benchcommon::summarize(full), s = benchcommon::summarize(sensors);
        std::printf("\nframe for a plan (%d frames x %d, the run's sensors):\n", o.frames, o.reps);
        std::printf("  renderFrame   (sensors + every label)   %7s ± %s ms\n", benchcommon::fixed(f.mean * 1e3, 3).c_str(),
                    benchcommon::fixed(f.sd * 1e3, 3).c_str());
        std::printf("  renderSensors (what closed loop uses)   %7s ± %s ms   %sx\n",
                    benchcommon::fixed(s.mean * 1e3, 3).c_str(), benchcommon::fixed(s.sd * 1e3, 3).c_str(),
                    benchcommon::fixed(f.mean / s.mean, 2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_drive: %s\n", e.what());
        return 2;
    }
}
