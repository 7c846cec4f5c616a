// The batch source of driving models (BatchKind::DrivingFrames, TransFuser-lite): frames of a synthetic dataset,
// shuffled per epoch and built ahead of the step by a BatchPrefetcher. No augmentation.
#include "core/engine/train/batchsource.h"
#include "core/engine/train/framebatch.h"
#include "core/synth/dataset.h"

#include <numeric>
#include <random>

namespace pitwall::engine {

namespace {

// Sample order of an epoch: reproducible from (seed, stage, epoch).
std::vector<std::int64_t> epochOrder(std::int64_t count, std::int64_t seed, Stage stage, int epoch)
{
    std::vector<std::int64_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 1000003ULL + static_cast<std::uint64_t>(stage) * 7919ULL +
                        static_cast<std::uint64_t>(epoch));
    std::shuffle(order.begin(), order.end(), rng);
    return order;
}

class DrivingBatches final : public BatchSource {
public:
    // Frames [0, trainCount) train and [valFirst, valEnd) validate: the last validationFraction, or under
    // data.hpo_split the last hpoFraction of the training part (the rest stays held out).
    DrivingBatches(const std::string& dir, const DataSplit& split)
        : m_dataset(synth::SynthDataset::open(dir)), m_spec(dataSpecFor(m_dataset.sensors()))
    {
        const std::int64_t frames = m_dataset.size();
        std::int64_t trainCount = frames - validationTailCount(frames, split.validationFraction, "the dataset " + dir);
        std::int64_t valFirst = trainCount, valEnd = frames;
        if (split.hpoFraction > 0) {
            valEnd = trainCount;
            trainCount -=
                validationTailCount(trainCount, split.hpoFraction, "the training part of " + dir + " (data.hpo_split)");
            valFirst = trainCount;
        }
        for (std::int64_t i = 0; i < trainCount; ++i)
            m_trainIndices.push_back(i);
        for (std::int64_t i = valFirst; i < valEnd; ++i)
            m_valIndices.push_back(i);
    }

    DataSpec spec() const override { return m_spec; }
    std::int64_t trainSize() const override { return static_cast<std::int64_t>(m_trainIndices.size()); }
    std::int64_t validationSize() const override { return static_cast<std::int64_t>(m_valIndices.size()); }

    void setLayout(const BatchLayout& layout) override { m_layout = layout; }
    std::int64_t stepsPerEpoch() const override
    {
        return std::max<std::int64_t>(1, trainSize() / (m_layout.batchSize * m_layout.worldSize));
    }

    void startStage(Stage stage, int, int) override
    {
        m_prefetcher.reset();
        m_stage = stage;
    }
    void startEpoch(int epoch) override;
    bool next(Batch& batch) override { return m_prefetcher && m_prefetcher->next(batch); }
    void stopStage() override { m_prefetcher.reset(); }

    Batch validationBatch(std::int64_t first, std::int64_t count) override
    {
        return loadBatch({m_valIndices.begin() + first, m_valIndices.begin() + first + count});
    }

private:
    Batch loadBatch(const std::vector<std::int64_t>& indices) const;

    synth::SynthDataset m_dataset;
    DataSpec m_spec;
    std::vector<std::int64_t> m_trainIndices, m_valIndices;
    BatchLayout m_layout;
    Stage m_stage = Stage::Pretrain;
    std::unique_ptr<BatchPrefetcher> m_prefetcher; // the current epoch's batches
};

void DrivingBatches::startEpoch(int epoch)
{
    const auto order = epochOrder(trainSize(), m_layout.seed, m_stage, epoch);
    const std::int64_t global = m_layout.batchSize * m_layout.worldSize;
    const std::int64_t rankOffset = m_layout.worldSize > 1 ? m_layout.rank * m_layout.batchSize : 0;
    m_prefetcher.reset(); // the last epoch's threads stop before the next epoch's start
    m_prefetcher = std::make_unique<BatchPrefetcher>(
        stepsPerEpoch(), m_layout.loaderThreads, m_layout.prefetchBatches,
        [this, order, global, rankOffset](std::int64_t b) {
            std::vector<std::int64_t> indices;
            // Global batch b covers order[b*G, (b+1)*G); this rank takes its slice of it.
            for (std::int64_t i = b * global + rankOffset; i < b * global + rankOffset + m_layout.batchSize; ++i)
                indices.push_back(m_trainIndices[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]);
            Batch batch = loadBatch(indices);
            if (m_layout.device.is_cuda()) // page-locked host memory makes the copy to the GPU asynchronous
                for (auto& [key, tensor] : batch.tensors)
                    tensor = tensor.pin_memory();
            return batch;
        });
}

Batch DrivingBatches::loadBatch(const std::vector<std::int64_t>& indices) const
{
    std::vector<std::map<std::string, torch::Tensor>> samples;
    samples.reserve(indices.size());
    for (std::int64_t i : indices)
        samples.push_back(frameTensors(m_dataset.readFrame(static_cast<int>(i)), m_dataset.sensors().bev, m_spec));
    return collate(samples);
}

} // namespace

std::unique_ptr<BatchSource> makeDrivingBatches(const std::string& dir, const DataSplit& split)
{
    return std::make_unique<DrivingBatches>(dir, split);
}

} // namespace pitwall::engine
