// The batch source of detection models (BatchKind::DetectionImages, AutoSpeed-lite): DetectionData's loader,
// one stream over the remaining epochs of a stage.
#include "core/engine/data/loaderoptions.h"
#include "core/engine/train/batchsource.h"
#include "core/engine/train/detectiondata.h"

namespace pitwall::engine {

namespace {

class DetectionBatches final : public BatchSource {
public:
    DetectionBatches(const std::string& dir, const ModelPlan& plan, const DataSplit& split,
                     const ResolvedConfig& config)
        : m_data(dir, plan, split), m_config(config)
    {
    }

    DataSpec spec() const override { return m_data.spec(); }
    std::int64_t trainSize() const override { return m_data.trainSize(); }
    std::int64_t validationSize() const override { return m_data.validationSize(); }
    std::vector<data::DataProblem> problems() const override { return m_data.problems(); }

    // data.* keys of the configuration for this rank; the batch and the thread count from the layout unless
    // data.num_workers names one.
    void setLayout(const BatchLayout& layout) override
    {
        m_options = data::loaderOptionsFromConfig(m_config, static_cast<std::uint64_t>(layout.seed), layout.rank,
                                                  layout.worldSize);
        m_options.batchSize = static_cast<int>(layout.batchSize);
        if (m_options.threads == 0)
            m_options.threads = layout.loaderThreads;
    }
    std::int64_t stepsPerEpoch() const override { return m_data.stepsPerEpoch(m_options); }

    void startStage(Stage, int firstEpoch, int epochs) override
    {
        m_loader.reset();
        if (firstEpoch < epochs)
            m_loader = m_data.trainLoader(m_options, firstEpoch, epochs - firstEpoch);
    }
    void startEpoch(int) override {} // the stage's stream runs on across epochs
    bool next(Batch& batch) override
    {
        data::LoadedBatch loaded;
        if (!m_loader || !m_loader->next(loaded))
            return false;
        batch = m_data.fromLoaded(loaded);
        return true;
    }
    void stopStage() override { m_loader.reset(); }

    Batch validationBatch(std::int64_t first, std::int64_t count) override
    {
        return m_data.validationBatch(first, count);
    }

private:
    DetectionData m_data;
    const ResolvedConfig& m_config;
    data::LoaderOptions m_options;
    std::unique_ptr<data::BatchLoader> m_loader; // the current stage's stream
};

} // namespace

std::unique_ptr<BatchSource> makeDetectionBatches(const std::string& dir, const ModelPlan& plan, const DataSplit& split,
                                                  const ResolvedConfig& config)
{
    return std::make_unique<DetectionBatches>(dir, plan, split, config);
}

} // namespace pitwall::engine
