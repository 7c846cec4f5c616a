#pragma once
// Where the trainer's batches come from. A run reads one of two kinds (ModelPlan::batches): driving frames of a
// synthetic dataset (drivingbatches.cpp, TransFuser-lite) or detection images through the data pipeline's loader
// (detectionbatches.cpp, AutoSpeed-lite). The stage loop sees only this interface. Engine-internal: includes torch.

#include "core/engine/data/dataset.h"
#include "core/engine/model/modelapi.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pitwall::engine {

// How a dataset is cut into training and validation samples.
struct DataSplit {
    double validationFraction = 0.1; // data.validation_fraction: the last part validates
    double hpoFraction = 0.0;        // data.hpo_validation_fraction under data.hpo_split, else 0: the training
                                     // part is cut again, its last hpoFraction validates and the rest stays held out
};
DataSplit dataSplitFromConfig(const ResolvedConfig& config);

// The last `fraction` of `count` samples (at least one). Throws InputError naming `what` when that leaves no
// sample to train on.
std::int64_t validationTailCount(std::int64_t count, double fraction, const std::string& what);

// How one rank reads its training batches; the same for every stage of a run.
struct BatchLayout {
    std::int64_t seed = 0; // the run's seed: sample order (and augmentation of detection images)
    int rank = 0;          // this process among worldSize ranks; rank r reads its slice of each global batch
    int worldSize = 1;
    std::int64_t batchSize = 1;        // samples per batch on this rank; a global batch is batchSize × worldSize
    int loaderThreads = 1;             // threads that build batches off the training thread
    int prefetchBatches = 2;           // batches built ahead of the step at most
    torch::Device device{torch::kCPU}; // where the batches go: on CUDA they come in page-locked memory
};

// The training stream and the validation batches of one run. Called from the training thread only; batches are
// built on the source's own threads. Order of calls: setLayout once, then per stage startStage, per epoch
// startEpoch and next until it returns false or the epoch's steps are taken, and stopStage.
class BatchSource {
public:
    virtual ~BatchSource() = default;

    // What the model is built for: image size, box classes, BEV raster.
    virtual DataSpec spec() const = 0;
    virtual std::int64_t trainSize() const = 0;      // training samples (all ranks together)
    virtual std::int64_t validationSize() const = 0; // validation (or val_hpo) samples
    // Files left out or partly read while indexing; the trainer logs them as warning events.
    virtual std::vector<data::DataProblem> problems() const { return {}; }

    virtual void setLayout(const BatchLayout& layout) = 0;
    // Batches per epoch on this rank; needs the layout.
    virtual std::int64_t stepsPerEpoch() const = 0;
    // Prepares the training stream for epochs [firstEpoch, epochs) of `stage`; firstEpoch > 0 after a resume.
    virtual void startStage(Stage stage, int firstEpoch, int epochs) = 0;
    // Starts epoch `epoch` (0-based, counted within the stage) of the stage started last.
    virtual void startEpoch(int epoch) = 0;
    // The next training batch of the epoch, on the CPU. Blocks until it is ready; false when the stream has
    // ended. Rethrows a failure to build it.
    virtual bool next(Batch& batch) = 0;
    // Ends the stage's stream and stops its threads.
    virtual void stopStage() = 0;

    // Validation samples [first, first + count) in order, without augmentation, built on the calling thread.
    virtual Batch validationBatch(std::int64_t first, std::int64_t count) = 0;
};

// Opens the dataset in `dir` and splits it for the kind of batches `plan` asks for. Throws InputError when the
// folder cannot be read or leaves nothing to train on; nothing is written. `config` must outlive the source.
std::unique_ptr<BatchSource> openBatchSource(const ModelPlan& plan, const std::string& dir, const DataSplit& split,
                                             const ResolvedConfig& config);

// The two kinds (openBatchSource picks one).
std::unique_ptr<BatchSource> makeDrivingBatches(const std::string& dir, const DataSplit& split);
std::unique_ptr<BatchSource> makeDetectionBatches(const std::string& dir, const ModelPlan& plan, const DataSplit& split,
                                                  const ResolvedConfig& config);

} // namespace pitwall::engine
