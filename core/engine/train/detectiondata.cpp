#include "core/engine/train/detectiondata.h"

#include "core/engine/data/augment.h"
#include "core/engine/data/sampler.h"

#include <filesystem>

namespace pitwall::engine {

namespace {

// Moves the last `fraction` of `index`'s samples into a new index (same root and classes) and returns it.
std::shared_ptr<data::DatasetIndex> splitTail(data::DatasetIndex& index, double fraction, const std::string& what)
{
    const auto count = static_cast<std::int64_t>(index.samples.size());
    const std::int64_t tail = validationTailCount(count, fraction, what);
    auto out = std::make_shared<data::DatasetIndex>();
    out->kind = index.kind;
    out->root = index.root;
    out->classNames = index.classNames;
    out->samples.assign(index.samples.end() - tail, index.samples.end());
    index.samples.resize(static_cast<std::size_t>(count - tail));
    return out;
}

} // namespace

DetectionData::DetectionData(const std::string& dir, const ModelPlan& plan, const DataSplit& split) : m_plan(plan)
{
    namespace fs = std::filesystem;
    const fs::path root(dir);
    std::error_code ec;
    if (fs::is_directory(root / "images" / "train", ec) && fs::is_directory(root / "images" / "val", ec)) {
        m_train = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "train"));
        m_val = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "val"));
    } else if (fs::is_directory(root / "cipo" / "training", ec) && fs::is_directory(root / "cipo" / "validation", ec)) {
        m_train = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "training"));
        m_val = std::make_shared<data::DatasetIndex>(data::indexDataset(dir, "validation"));
    } else {
        m_train = std::make_shared<data::DatasetIndex>(data::indexDataset(dir));
        m_val = splitTail(*m_train, split.validationFraction, "the dataset " + dir);
    }
    if (split.hpoFraction > 0) {
        m_val = splitTail(*m_train, split.hpoFraction, "the training split of " + dir + " (data.hpo_split)");
        m_trainName = "train_hpo";
    }
    data::SampleOptions sample;
    sample.outputWidth = plan.inputWidth;
    sample.outputHeight = plan.inputHeight;
    sample.augment.enabled = false;
    m_renderer = std::make_unique<data::SampleRenderer>(sample);
}

DataSpec DetectionData::spec() const
{
    DataSpec spec;
    spec.imageWidth = m_plan.inputWidth;
    spec.imageHeight = m_plan.inputHeight;
    if (!m_train->classNames.empty())
        spec.boxClasses = static_cast<int>(m_train->classNames.size());
    return spec;
}

std::int64_t DetectionData::stepsPerEpoch(const data::LoaderOptions& options) const
{
    return data::EpochSampler(trainSize(), options.shard).samplesPerEpoch() / options.batchSize;
}

std::unique_ptr<data::BatchLoader> DetectionData::trainLoader(data::LoaderOptions options, int firstEpoch,
                                                              int epochs) const
{
    options.sample.outputWidth = m_plan.inputWidth;
    options.sample.outputHeight = m_plan.inputHeight;
    options.sample.augment = m_plan.augment;
    options.epochs = epochs;
    options.firstEpoch = firstEpoch; // a resumed run sees the order and augmentation of the epochs it continues
    if (options.usePreprocessed && options.cachePath.empty())
        options.cachePath = (std::filesystem::path(m_train->root) / ".pitwall-cache" /
                             (m_trainName + "-" + std::to_string(m_plan.inputWidth) + "x" +
                              std::to_string(m_plan.inputHeight) + ".bin"))
                                .string();
    return data::makeBatchLoader(m_train, options);
}

Batch DetectionData::fromLoaded(const data::LoadedBatch& loaded) const
{
    Batch batch;
    batch.size = loaded.images.size(0);
    batch.tensors["image"] = loaded.images;
    batch.tensors["boxes"] = data::packBoxes(loaded, m_plan.maxBoxes);
    return batch;
}

Batch DetectionData::validationBatch(std::int64_t first, std::int64_t count)
{
    data::LoadedBatch loaded;
    loaded.images = torch::empty({count, 3, m_plan.inputHeight, m_plan.inputWidth}, torch::kFloat);
    const std::int64_t slot = 3 * m_plan.inputHeight * m_plan.inputWidth;
    for (std::int64_t i = 0; i < count; ++i) {
        const data::SampleKey key{0, 0, first + i, 0};
        data::SampleResult r = m_renderer->render(m_val->samples[static_cast<std::size_t>(first + i)], key,
                                                  loaded.images.data_ptr<float>() + i * slot);
        loaded.boxes.push_back(std::move(r.boxes));
    }
    return fromLoaded(loaded);
}

} // namespace pitwall::engine
