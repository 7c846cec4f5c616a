#pragma once
// Image batches of detection models (BatchKind::DetectionImages): the dataset indexed once and split into
// training and validation, the data pipeline's loader for training, and in-order, un-augmented batches for
// validation. The trainer reaches it through DetectionBatches (detectionbatches.cpp). Engine-internal: includes
// torch.

#include "core/engine/data/loader.h"
#include "core/engine/data/sample.h"
#include "core/engine/model/modelapi.h"
#include "core/engine/train/batchsource.h"

#include <memory>
#include <string>
#include <vector>

namespace pitwall::engine {

class DetectionData {
public:
    // The dataset's own splits when it has them (YOLO images/{train,val}, OpenLane cipo/{training,validation}),
    // else the last split.validationFraction of its samples. With split.hpoFraction > 0 (data.hpo_split) the
    // validation split is held out and the training split is cut in two: train_hpo, and its last hpoFraction as
    // val_hpo. Throws InputError when the folder has no usable sample or too few to split.
    DetectionData(const std::string& dir, const ModelPlan& plan, const DataSplit& split);

    // Image size from the plan; box classes from the dataset's class names when it has any.
    DataSpec spec() const;
    std::int64_t trainSize() const { return static_cast<std::int64_t>(m_train->samples.size()); }
    std::int64_t validationSize() const { return static_cast<std::int64_t>(m_val->samples.size()); }
    // Problems found while indexing the training split.
    const std::vector<data::DataProblem>& problems() const { return m_train->problems; }

    // Full batches per epoch on the rank of options.shard.
    std::int64_t stepsPerEpoch(const data::LoaderOptions& options) const;
    // The training stream of one rank for `epochs` epochs. The loader counts epochs from 0; a resumed stage
    // (firstEpoch > 0) mixes firstEpoch into the shuffling and augmentation seed instead.
    std::unique_ptr<data::BatchLoader> trainLoader(data::LoaderOptions options, int firstEpoch, int epochs) const;
    // A loaded batch as the model sees it: "image" [B, 3, H, W] and "boxes" [B, plan.maxBoxes, 5].
    Batch fromLoaded(const data::LoadedBatch& loaded) const;
    // Validation samples [first, first + count), centred and without augmentation, on the calling thread.
    Batch validationBatch(std::int64_t first, std::int64_t count);

private:
    ModelPlan m_plan;
    std::shared_ptr<data::DatasetIndex> m_train, m_val;
    std::string m_trainName = "train"; // names the pre-processed cache of the training samples
    std::unique_ptr<data::SampleRenderer> m_renderer;
};

} // namespace pitwall::engine
