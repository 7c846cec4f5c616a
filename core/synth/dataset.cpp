// Generating episodes and writing them as a dataset folder.
#include "core/synth/dataset.h"

#include "core/config/config.h"
#include "core/synth/internal/imageio.h"
#include "core/util/error.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

namespace pitwall::synth {

namespace {

namespace fs = std::filesystem;
using internal::encodeJpeg;
using internal::encodePng;
using internal::writeFile;

const char* const kFolders[] = {"rgb", "semantic", "depth", "bev_semantic", "lidar", "meta"};

std::string frameName(int index)
{
    char name[16];
    std::snprintf(name, sizeof name, "%06d", index);
    return name;
}

std::uint64_t writeFrame(const std::string& dir, int index, int episode, int episodeFrame, const Frame& frame,
                         const SynthOptions& options)
{
    const std::string name = frameName(index);
    std::uint64_t bytes = 0;
    auto put = [&](const std::string& path, const std::vector<std::uint8_t>& data) {
        writeFile(dir + "/" + path, data);
        bytes += data.size();
    };
    put("rgb/" + name + ".jpg",
        encodeJpeg(frame.rgb.pixels.data(), frame.rgb.width, frame.rgb.height, options.jpegQuality));
    put("semantic/" + name + ".png",
        encodePng(frame.semantic.pixels.data(), frame.semantic.width, frame.semantic.height, 1, false));
    std::vector<std::uint16_t> depth(frame.depth.pixels.size());
    for (std::size_t i = 0; i < depth.size(); ++i)
        depth[i] = static_cast<std::uint16_t>(
            std::min(65535.0, std::max(0.0, static_cast<double>(frame.depth.pixels[i]) * kDepthPngScale + 0.5)));
    put("depth/" + name + ".png", encodePng(depth.data(), frame.depth.width, frame.depth.height, 1, true));
    put("bev_semantic/" + name + ".png",
        encodePng(frame.bevSemantic.pixels.data(), frame.bevSemantic.width, frame.bevSemantic.height, 1, false));
    put("lidar/" + name + ".png",
        encodePng(frame.lidarCounts.pixels.data(), frame.lidarCounts.width, frame.lidarCounts.height, 1, true));
    const std::string meta = frameMetaJson(frame.labels, options.sensors.camera, index, episode, episodeFrame).dump();
    put("meta/" + name + ".json", std::vector<std::uint8_t>(meta.begin(), meta.end()));
    return bytes;
}

} // namespace

SynthOptions synthOptionsFromConfig(const ResolvedConfig& config)
{
    auto integer = [&](const char* key) {
        return static_cast<int>(config.getInt(std::string("data.synthetic.") + key));
    };
    auto real = [&](const char* key) { return config.getDouble(std::string("data.synthetic.") + key); };
    SynthOptions o;
    o.frames = integer("frames");
    o.episodeFrames = integer("episode_frames");
    o.seed = static_cast<std::uint64_t>(config.getInt("data.synthetic.seed"));
    o.frameIntervalS = real("frame_interval_s");
    o.jpegQuality = integer("jpeg_quality");
    o.threads = integer("threads");
    o.world.trafficDensity = real("traffic_density");
    o.world.pedestrianDensity = real("pedestrian_density");
    o.sensors.camera.width = integer("image_width");
    o.sensors.camera.height = integer("image_height");
    o.sensors.camera.horizontalFovDeg = real("camera_fov_deg");
    o.sensors.bev.width = integer("bev_width");
    o.sensors.bev.height = integer("bev_height");
    o.sensors.bev.pixelsPerMeter = real("pixels_per_meter");
    o.sensors.bev.xMinM = real("bev_x_min_m");
    o.sensors.lidar.channels = integer("lidar_channels");
    o.sensors.lidar.azimuthSteps = integer("lidar_azimuth_steps");
    return o;
}

void validateSynthOptions(const SynthOptions& o)
{
    std::vector<Diagnostic> problems;
    auto require = [&](bool ok, const std::string& message) {
        if (!ok)
            problems.push_back({{}, message});
    };
    const CameraConfig& c = o.sensors.camera;
    const BevConfig& b = o.sensors.bev;
    require(o.frames >= 1, "frames must be at least 1");
    require(o.episodeFrames >= 1, "episode frames must be at least 1");
    require(o.frameIntervalS > 0 && o.frameIntervalS <= 10, "frame interval must be in (0, 10] s");
    require(o.simulationStepS > 0 && o.simulationStepS <= 0.1, "simulation step must be in (0, 0.1] s");
    require(o.warmupS >= 0, "warm-up must not be negative");
    require(o.jpegQuality >= 1 && o.jpegQuality <= 100, "JPEG quality must be in [1, 100]");
    require(o.threads >= 0, "threads must not be negative");
    require(c.width >= 16 && c.width <= 8192 && c.height >= 16 && c.height <= 8192,
            "image size must be within 16..8192 pixels per side");
    require(c.horizontalFovDeg >= 10 && c.horizontalFovDeg <= 160, "camera field of view must be in [10, 160] degrees");
    require(b.width >= 4 && b.width <= 4096 && b.height >= 4 && b.height <= 4096,
            "BEV size must be within 4..4096 cells per side");
    require(b.pixelsPerMeter > 0 && b.pixelsPerMeter <= 64, "BEV pixels per metre must be in (0, 64]");
    require(b.xMinM <= 0 && b.xMaxM() > 0, "the BEV grid must contain the ego (x_min <= 0 < x_max)");
    require(o.sensors.lidar.channels >= 1 && o.sensors.lidar.azimuthSteps >= 8,
            "LiDAR needs channels and azimuth steps");
    require(o.world.trafficDensity >= 0 && o.world.pedestrianDensity >= 0, "densities must not be negative");
    if (!problems.empty())
        throw InputError(std::move(problems));
}

EpisodeGenerator::EpisodeGenerator(const SynthOptions& options, int episode)
    : m_options(options), m_world([&] {
          WorldOptions world = options.world;
          world.durationS = options.warmupS + options.episodeFrames * options.frameIntervalS + 5;
          return World::create(mixSeed(options.seed, static_cast<std::uint64_t>(episode)), world);
      }())
{
    const int steps = static_cast<int>(std::lround(options.warmupS / options.simulationStepS));
    for (int i = 0; i < steps; ++i)
        m_world.step(options.simulationStepS);
}

Frame EpisodeGenerator::next()
{
    Frame frame = renderFrame(m_world, m_options.sensors);
    const int steps = std::max(1, static_cast<int>(std::lround(m_options.frameIntervalS / m_options.simulationStepS)));
    const double dt = m_options.frameIntervalS / steps;
    for (int i = 0; i < steps; ++i)
        m_world.step(dt);
    return frame;
}

GenerationStats writeSynthDataset(const std::string& dir, const SynthOptions& options, const ProgressReporter& reporter,
                                  const CancelToken* cancel)
{
    const std::function<void(std::int64_t, std::int64_t)> progress = reporter.counter(kSynthesisingFrames);
    validateSynthOptions(options);
    const auto start = std::chrono::steady_clock::now();
    std::error_code ec;
    for (const char* folder : kFolders) {
        fs::create_directories(fs::path(dir) / folder, ec);
        if (ec)
            throw RuntimeError("cannot create " + (fs::path(dir) / folder).string() + ": " + ec.message());
    }
    fs::remove(fs::path(dir) / "dataset.json", ec); // present again only once every frame is written

    const int frames = options.frames, perEpisode = options.episodeFrames;
    const int episodes = (frames + perEpisode - 1) / perEpisode;
    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::clamp(threads, 1, episodes);

    std::atomic<int> nextEpisode{0}, written{0}, running{threads};
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto cancelled = [&] { return failed.load() || (cancel && cancel->requested()); };
    auto work = [&](bool reportHere) {
        try {
            for (int e = nextEpisode++; e < episodes && !cancelled(); e = nextEpisode++) {
                EpisodeGenerator generator(options, e);
                const int first = e * perEpisode, count = std::min(perEpisode, frames - first);
                for (int k = 0; k < count && !cancelled(); ++k) {
                    const Frame frame = generator.next();
                    bytes += writeFrame(dir, first + k, e, k, frame, options);
                    const int done = ++written;
                    if (reportHere)
                        progress(done, frames);
                }
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(errorMutex);
            if (!error)
                error = std::current_exception();
            failed = true;
        }
        --running;
    };
    if (threads == 1) {
        work(true);
    } else {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back(work, false);
        int reported = 0;
        while (running.load() > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            const int done = written.load();
            if (done != reported)
                progress(reported = done, frames);
        }
        for (std::thread& t : pool)
            t.join();
        if (written.load() != reported)
            progress(written.load(), frames);
    }
    if (error)
        std::rethrow_exception(error);

    GenerationStats stats;
    stats.frames = written.load();
    stats.episodes = std::min(episodes, nextEpisode.load());
    stats.complete = stats.frames == frames;
    if (stats.complete) {
        const std::string text = datasetJson(options).dump(2) + "\n";
        writeFile((fs::path(dir) / "dataset.json").string(), std::vector<std::uint8_t>(text.begin(), text.end()));
        bytes += text.size();
    }
    stats.bytes = bytes.load();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

} // namespace pitwall::synth
