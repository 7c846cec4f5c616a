#pragma once
// The synthetic driving dataset: episodes generated in memory, written to a folder, and read back.
//
// Layout of a dataset folder (frame index NNNNNN is zero-padded to 6 digits, counting from 0):
//   dataset.json             sizes, frame count, seed, class names, scales, generator version (written last:
//                            a folder without it is incomplete)
//   rgb/NNNNNN.jpg           camera RGB, JPEG (libjpeg-turbo, 4:4:4, quality `jpegQuality`)
//   semantic/NNNNNN.png      8-bit grey: SemanticClass per pixel
//   depth/NNNNNN.png         16-bit grey: planar depth * kDepthPngScale (1/256 m steps, up to 255.99 m;
//                            sky is kSkyDepthM)
//   bev_semantic/NNNNNN.png  8-bit grey: BevClass per cell (grid layout in render.h)
//   lidar/NNNNNN.png         16-bit grey: LiDAR returns per BEV cell (unclipped count); the network input is
//                            min(count, histogram_max_per_cell) / histogram_max_per_cell
//   meta/NNNNNN.json         labels: objects (BEV box, image box, class, CIPO level), waypoints, target speed and
//                            point, speed, command, camera intrinsics
// Frame i belongs to episode i / episodeFrames; each episode is a new road and new traffic from the seed
// mixSeed(seed, episode), so any episode can be regenerated alone and the bytes do not depend on threads.

#include "core/synth/render.h"
#include "core/util/cancel.h"
#include "core/util/progress.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace pitwall {
class ResolvedConfig;
}

namespace pitwall::synth {

constexpr int kGeneratorVersion = 1;
constexpr const char* kDatasetFormat = "pitwall-synth";
constexpr double kDepthPngScale = 256.0; // depth PNG value per metre

struct SynthOptions {
    int frames = 1000;
    int episodeFrames = 50;
    std::uint64_t seed = 0;
    double frameIntervalS = 0.5; // simulated time between two frames of an episode
    double warmupS = 2.0;        // simulated before an episode's first frame (traffic settles)
    double simulationStepS = 0.05;
    int jpegQuality = 90;
    int threads = 1;    // episodes generated in parallel; 0 = one per core
    WorldOptions world; // durationS is derived from the episode length
    SensorConfig sensors;
};

// The data.synthetic.* keys of a resolved configuration.
SynthOptions synthOptionsFromConfig(const ResolvedConfig& config);
// Throws InputError naming every option out of range.
void validateSynthOptions(const SynthOptions& options);

// Frames of one episode, rendered in memory in order.
class EpisodeGenerator {
public:
    EpisodeGenerator(const SynthOptions& options, int episode);
    // Renders the current state, then advances frameIntervalS.
    Frame next();
    const World& world() const { return m_world; }

private:
    SynthOptions m_options;
    World m_world;
};

struct GenerationStats {
    int frames = 0; // frames written
    int episodes = 0;
    bool complete = false; // false when cancelled (dataset.json is then not written)
    double seconds = 0;
    std::uint64_t bytes = 0;
};

// The progress phase of writeSynthDataset.
inline constexpr const char* kSynthesisingFrames = "synthesising frames";

// Writes a dataset into `dir` (created if missing; existing frame files are overwritten). Throws InputError for
// bad options and RuntimeError when a file cannot be written. Progress goes to `reporter` on the calling thread as
// the phase "synthesising frames" (frames written of the total; the phase ends with the last frame). `cancel`,
// when set, stops at the next frame.
GenerationStats writeSynthDataset(const std::string& dir, const SynthOptions& options,
                                  const ProgressReporter& reporter = {}, const CancelToken* cancel = nullptr);

// Short names used by core/engine/train (same functions).
inline SynthOptions generatorOptionsFrom(const ResolvedConfig& config)
{
    return synthOptionsFromConfig(config);
}
inline GenerationStats writeDataset(const std::string& dir, const SynthOptions& options,
                                    const ProgressReporter& reporter = {}, const CancelToken* cancel = nullptr)
{
    return writeSynthDataset(dir, options, reporter, cancel);
}

// Whether `dir` holds a finished dataset this build can read (dataset.json present and valid).
bool isCompleteDataset(const std::string& dir);

// What dataset.json describes.
struct DatasetInfo {
    int frames = 0;
    int episodeFrames = 0;
    std::uint64_t seed = 0;
    int generatorVersion = 0;
    double frameIntervalS = 0;
    int jpegQuality = 0;
    SensorConfig sensors;
};

// The JSON documents of the layout above.
nlohmann::json datasetJson(const SynthOptions& options);
DatasetInfo datasetInfoFromJson(const nlohmann::json& json, const std::string& file); // InputError naming file
nlohmann::json frameMetaJson(const FrameLabels& labels, const CameraConfig& camera, int frame, int episode,
                             int episodeFrame);
FrameLabels frameLabelsFromJson(const nlohmann::json& json, const std::string& file); // InputError naming file

// Read access to a dataset folder. Reading is const and keeps no shared state, so several threads may read
// frames of one SynthDataset at once.
class SynthDataset {
public:
    // Validates dataset.json; InputError naming the file when it is missing, not JSON or inconsistent.
    static SynthDataset open(const std::string& dir);

    const DatasetInfo& info() const { return m_info; }
    const SensorConfig& sensors() const { return m_info.sensors; }
    int frameCount() const { return m_info.frames; }
    int size() const { return m_info.frames; }
    const std::string& directory() const { return m_dir; }
    // "rgb/000012.jpg" style path of one file of frame `index`; kind is rgb, semantic, depth, bev_semantic,
    // lidar or meta.
    std::string framePath(const std::string& kind, int index) const;

    // Decodes every file of a frame. A missing, corrupt or mis-sized file is an InputError naming it.
    Frame readFrame(int index) const;

private:
    std::string m_dir;
    DatasetInfo m_info;
};

} // namespace pitwall::synth
