#pragma once
// Turning synthetic-world frames into the tensors TransFuser-lite trains on, and batches of them ahead of
// the training step. Engine-internal: includes torch.

#include "core/engine/model/modelapi.h"
#include "core/synth/render.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace pitwall::engine {

// Maximum boxes per sample in the "boxes" tensor (padding rows have class −1).
constexpr int kMaxBoxesPerSample = 48;
// ImageNet normalisation, as LEAD's image branch expects.
constexpr float kImageMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kImageStd[3] = {0.229f, 0.224f, 0.225f};

DataSpec dataSpecFor(const synth::SensorConfig& sensors);

// One sample's tensors (no batch dimension): rgb [3,H,W] float, lidar [1,Hb,Wb], semantic [H,W] long,
// depth [H,W] metres (clamped to spec.maxDepthMeters), bev_semantic [Hb,Wb] long, boxes [kMax, 7] (see
// transfuser losses: row, col, length, width in BEV pixels, yaw, class, speed), waypoints [8,2],
// target_speed, target_point [2], speed, command.
std::map<std::string, torch::Tensor> frameTensors(const synth::Frame& frame, const synth::BevConfig& bev,
                                                  const DataSpec& spec);
// The inputs a model plans from in closed loop (a frame of synth::renderSensors): rgb, lidar, speed, target_point
// and command, each as frameTensors makes it; no label.
std::map<std::string, torch::Tensor> planTensors(const synth::Frame& frame);

// Stacks samples into a batch.
Batch collate(const std::vector<std::map<std::string, torch::Tensor>>& samples);

// Produces the batches of one epoch in order on `threads` worker threads, at most `prefetch` batches ahead.
// loadBatch(i) builds batch i; it runs off the caller's thread. next() blocks until batch i is ready and
// returns false after the last one. Exceptions from loadBatch are rethrown by next().
class BatchPrefetcher {
public:
    BatchPrefetcher(std::int64_t batches, int threads, int prefetch, std::function<Batch(std::int64_t)> loadBatch);
    ~BatchPrefetcher();
    bool next(Batch& batch);

private:
    void work();

    std::int64_t m_batches;
    std::size_t m_prefetch;
    std::function<Batch(std::int64_t)> m_load;
    std::mutex m_mutex;
    std::condition_variable m_ready, m_space;
    std::map<std::int64_t, Batch> m_done;
    std::int64_t m_nextToClaim = 0, m_nextToHand = 0;
    std::exception_ptr m_error;
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

} // namespace pitwall::engine
