#include "core/engine/train/framebatch.h"

#include <cstring>

namespace pitwall::engine {

DataSpec dataSpecFor(const synth::SensorConfig& sensors)
{
    DataSpec spec;
    spec.imageHeight = sensors.camera.height;
    spec.imageWidth = sensors.camera.width;
    spec.bevHeight = sensors.bev.height;
    spec.bevWidth = sensors.bev.width;
    spec.waypoints = synth::kWaypointCount;
    spec.semanticClasses = synth::kSemanticClassCount;
    spec.bevSemanticClasses = synth::kBevClassCount;
    spec.boxClasses = synth::kBoxClassCount;
    spec.maxDepthMeters = 100.0;
    spec.bevPixelsPerMeter = sensors.bev.pixelsPerMeter;
    return spec;
}

namespace {

// rgb (normalised as in training) and lidar.
std::map<std::string, torch::Tensor> sensorTensors(const synth::Frame& frame)
{
    std::map<std::string, torch::Tensor> t;
    const auto& rgb = frame.rgb;
    auto image = torch::from_blob(const_cast<std::uint8_t*>(rgb.pixels.data()), {rgb.height, rgb.width, 3}, torch::kUInt8)
                     .permute({2, 0, 1})
                     .to(torch::kFloat)
                     .div_(255.0f);
    auto mean = torch::tensor({kImageMean[0], kImageMean[1], kImageMean[2]}).view({3, 1, 1});
    auto stdev = torch::tensor({kImageStd[0], kImageStd[1], kImageStd[2]}).view({3, 1, 1});
    t["rgb"] = ((image - mean) / stdev).contiguous();
    t["lidar"] = torch::from_blob(const_cast<float*>(frame.lidar.pixels.data()), {1, frame.lidar.height, frame.lidar.width},
                                  torch::kFloat)
                     .clone();
    return t;
}

// What the ego measures of itself: target_point, speed, command.
void addMeasurements(const synth::Frame& frame, std::map<std::string, torch::Tensor>& t)
{
    t["target_point"] = torch::tensor({static_cast<float>(frame.labels.targetPoint.x), static_cast<float>(frame.labels.targetPoint.y)});
    t["speed"] = torch::tensor(static_cast<float>(frame.labels.speed));
    t["command"] = torch::tensor(static_cast<std::int64_t>(frame.labels.command));
}

} // namespace

std::map<std::string, torch::Tensor> frameTensors(const synth::Frame& frame, const synth::BevConfig& bev,
                                                  const DataSpec& spec)
{
    std::map<std::string, torch::Tensor> t = sensorTensors(frame);
    t["semantic"] = torch::from_blob(const_cast<std::uint8_t*>(frame.semantic.pixels.data()),
                                     {frame.semantic.height, frame.semantic.width}, torch::kUInt8)
                        .to(torch::kLong);
    t["depth"] = torch::from_blob(const_cast<float*>(frame.depth.pixels.data()), {frame.depth.height, frame.depth.width},
                                  torch::kFloat)
                     .clamp(0.0, spec.maxDepthMeters);
    t["bev_semantic"] = torch::from_blob(const_cast<std::uint8_t*>(frame.bevSemantic.pixels.data()),
                                         {frame.bevSemantic.height, frame.bevSemantic.width}, torch::kUInt8)
                            .to(torch::kLong);

    auto boxes = torch::full({kMaxBoxesPerSample, 7}, -1.0f);
    auto b = boxes.accessor<float, 2>();
    int n = 0;
    for (const synth::ObjectLabel& object : frame.labels.objects) {
        if (!object.bev || n >= kMaxBoxesPerSample)
            continue;
        const synth::BevBox& box = *object.bev;
        b[n][0] = static_cast<float>((bev.yMaxM() - box.y) * bev.pixelsPerMeter);
        b[n][1] = static_cast<float>((box.x - bev.xMinM) * bev.pixelsPerMeter);
        b[n][2] = static_cast<float>(box.length * bev.pixelsPerMeter);
        b[n][3] = static_cast<float>(box.width * bev.pixelsPerMeter);
        b[n][4] = static_cast<float>(box.yaw);
        b[n][5] = static_cast<float>(static_cast<int>(object.boxClass));
        b[n][6] = static_cast<float>(box.speed);
        ++n;
    }
    t["boxes"] = boxes;
    auto waypoints = torch::empty({synth::kWaypointCount, 2});
    for (int i = 0; i < synth::kWaypointCount; ++i) {
        waypoints[i][0] = frame.labels.waypoints[i].x;
        waypoints[i][1] = frame.labels.waypoints[i].y;
    }
    t["waypoints"] = waypoints;
    t["target_speed"] = torch::tensor(static_cast<float>(frame.labels.targetSpeed));
    addMeasurements(frame, t);
    return t;
}

std::map<std::string, torch::Tensor> planTensors(const synth::Frame& frame)
{
    std::map<std::string, torch::Tensor> t = sensorTensors(frame);
    addMeasurements(frame, t);
    return t;
}

Batch collate(const std::vector<std::map<std::string, torch::Tensor>>& samples)
{
    Batch batch;
    batch.size = static_cast<std::int64_t>(samples.size());
    if (samples.empty())
        return batch;
    for (const auto& [name, first] : samples.front()) {
        std::vector<torch::Tensor> parts;
        parts.reserve(samples.size());
        for (const auto& sample : samples)
            parts.push_back(sample.at(name));
        batch.tensors[name] = torch::stack(parts);
    }
    return batch;
}

BatchPrefetcher::BatchPrefetcher(std::int64_t batches, int threads, int prefetch,
                                 std::function<Batch(std::int64_t)> loadBatch)
    : m_batches(batches), m_prefetch(static_cast<std::size_t>(std::max(1, prefetch))), m_load(std::move(loadBatch))
{
    for (int i = 0; i < std::max(1, threads); ++i)
        m_threads.emplace_back([this] { work(); });
}

BatchPrefetcher::~BatchPrefetcher()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_space.notify_all();
    m_ready.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

void BatchPrefetcher::work()
{
    // No at::set_num_threads here: it resizes process-wide pools (pthreadpool, BLAS) that the training
    // step uses, which makes step results depend on thread timing. Per-sample tensors are below ATen's
    // grain size, so their ops run on this thread anyway.
    while (true) {
        std::int64_t index;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_space.wait(lock, [this] {
                return m_stop || m_nextToClaim >= m_batches ||
                       static_cast<std::size_t>(m_nextToClaim - m_nextToHand) < m_prefetch;
            });
            if (m_stop || m_nextToClaim >= m_batches)
                return;
            index = m_nextToClaim++;
        }
        Batch batch;
        std::exception_ptr error;
        try {
            batch = m_load(index);
        } catch (...) {
            error = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (error && !m_error)
                m_error = error;
            m_done[index] = std::move(batch);
        }
        m_ready.notify_all();
    }
}

bool BatchPrefetcher::next(Batch& batch)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_nextToHand >= m_batches)
        return false;
    m_ready.wait(lock, [this] { return m_error || m_done.count(m_nextToHand); });
    if (m_error)
        std::rethrow_exception(m_error);
    batch = std::move(m_done[m_nextToHand]);
    m_done.erase(m_nextToHand);
    ++m_nextToHand;
    lock.unlock();
    m_space.notify_all();
    return true;
}

} // namespace pitwall::engine
