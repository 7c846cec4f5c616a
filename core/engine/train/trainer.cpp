#include "core/engine/train/trainer.h"

#include "core/engine/train/run.h"
#include "core/util/error.h"
#include "core/util/process.h"
#include "core/util/timefmt.h"

#include <unistd.h>

namespace pitwall::engine {

namespace internal {


void Run::metric(const std::string& stage, std::int64_t step, const std::string& key, double value)
{
    if (m_leader)
        m_writer->add(MetricSample{m_runId, stage, step, key, value, nowSeconds()});
}

void Run::event(EventLevel level, const std::string& message)
{
    if (m_leader)
        m_store->addEvent(m_runId, level, message);
}

// The validation split in order, without gradients: the model's metrics and the mean loss (lossOut).
std::map<std::string, double> Run::validate(double& lossOut)
{
    torch::NoGradGuard noGrad;
    m_model->module().eval();
    MetricAccumulator metrics;
    double lossSum = 0;
    std::int64_t batches = 0;
    const std::int64_t count = m_batches->validationSize();
    for (std::int64_t start = 0; start < count; start += m_valBatchSize) {
        const std::int64_t end = std::min(count, start + m_valBatchSize);
        const Batch batch = m_batches->validationBatch(start, end - start).to(m_device);
        AutocastGuard autocast(m_precision, m_device);
        lossSum += m_model->computeLoss(batch).total.item<double>();
        m_model->evaluate(batch, metrics);
        ++batches;
    }
    m_model->module().train();
    lossOut = batches ? lossSum / batches : 0.0;
    return m_model->finishMetrics(metrics);
}

int Run::stageEpochs(Stage stage) const
{
    if (m_plan.epochs >= 0) // the model's own epochs key: a single stage
        return stage == Stage::Pretrain ? m_plan.epochs : 0;
    return static_cast<int>(m_config.getInt(stage == Stage::Pretrain ? "training.stages.pretrain.epochs"
                                                                     : "training.stages.posttrain.epochs"));
}

// Everything that can be wrong with the input, checked before the store is touched: the model, the data and its
// split, the device and precision, the batch size against the logical devices and the training samples.
void Run::checkInput()
{
    m_plan = modelPlan(m_config);
    const DataSplit split = dataSplitFromConfig(m_config);
    m_batches = openBatchSource(m_plan, m_request.dataDir, split, m_config);
    m_device = deviceFor(m_config, m_request.device);
    m_precision = precisionFor(m_config, m_device);
    if (m_precision == Precision::Fp16)
        m_scaler = std::make_unique<LossScaler>(m_device);
    if (cudnnAutotune(m_config, m_device))
        at::globalContext().setBenchmarkCuDNN(true); // each convolution shape is timed once, the fastest kept
    const int world = std::max(1, m_request.worldSize);
    if (world > 1) // checked here, before any data is read
        collectiveBackendFor(m_config.getString("training.distribution.backend"), m_device,
                             m_config.getString("device.partition_mode"));
    if (m_plan.batchSize > 0) { // the model's own key: a batch per logical device
        m_batchSize = m_plan.batchSize;
    } else {
        m_globalBatch = m_config.getInt("training.optimization.batch_size");
        if (m_globalBatch < world)
            throw InputError("training.optimization.batch_size=" + std::to_string(m_globalBatch) +
                             " is smaller than the " + std::to_string(world) +
                             " logical devices the run spans (one sample each at least)");
        m_batchSize = m_globalBatch / world; // per rank, as LEAD: batch_size // device_count
    }
    m_globalBatch = m_batchSize * world;
    m_valBatchSize = m_plan.validationBatchSize > 0 ? m_plan.validationBatchSize : m_batchSize;
    m_leader = m_request.rank == 0;
    const std::int64_t trainCount = m_batches->trainSize();
    if (trainCount < m_globalBatch)
        throw InputError("the dataset " + m_request.dataDir + " leaves " + std::to_string(trainCount) +
                         " sample(s) for training after the validation split" +
                         (split.hpoFraction > 0 ? std::string(" and data.hpo_split") : std::string()) +
                         ", fewer than one batch of " + std::to_string(m_globalBatch) +
                         " (make more frames or lower the batch size)");
}

// Threads, the batch layout, the model on its device, the checkpoints and, over several ranks, the process group.
void Run::setUpTraining()
{
    const int world = std::max(1, m_request.worldSize);
    const int threads = m_config.getInt("training.optimization.num_threads") > 0
                            ? static_cast<int>(m_config.getInt("training.optimization.num_threads"))
                            : std::max(1, m_request.device.threads);
    at::set_num_threads(threads);
    BatchLayout layout;
    layout.seed = m_request.seed;
    layout.rank = m_request.rank;
    layout.worldSize = world;
    layout.batchSize = m_batchSize;
    layout.loaderThreads = m_config.getInt("data.num_workers") > 0
                               ? static_cast<int>(m_config.getInt("data.num_workers"))
                               : std::max(1, threads / 2);
    layout.prefetchBatches = static_cast<int>(m_config.getInt("data.prefetch_batches"));
    layout.device = m_device;
    m_batches->setLayout(layout);
    m_logEvery = static_cast<int>(m_config.getInt("training.experiment.log_scalars_every_n_steps"));
    torch::manual_seed(static_cast<std::uint64_t>(m_request.seed));
    m_model = createModel(m_config, m_batches->spec());
    m_model->module().to(m_device);
    m_model->module().train();
    m_result.notices = precisionNotices(m_config, m_device);
    for (const std::string& note : m_model->notices())
        m_result.notices.push_back(note);
    m_checkpoints = std::make_unique<CheckpointStore>(m_request.checkpointDir);
    if (world > 1) {
        m_parallel =
            std::make_unique<DataParallel>(m_request.rank, world, m_request.rendezvous, std::chrono::minutes(5),
                                           collectiveBackendFor(m_config.getString("training.distribution.backend"),
                                                                m_device, m_config.getString("device.partition_mode")),
                                           m_device);
        std::vector<torch::Tensor> state = m_model->module().parameters();
        for (const auto& b : m_model->module().buffers())
            state.push_back(b);
        m_parallel->broadcast(state); // every rank starts from rank 0's weights
    }
}

// The leader's run in the store: its record, the metrics writer, the notices and the data problems.
void Run::openRunRecord()
{
    const int world = std::max(1, m_request.worldSize);
    m_store = openStore(m_request.storeLocation);
    RunRecord record;
    record.trialId = m_request.trialId;
    record.kind = "train";
    record.configYaml = m_config.toYaml();
    record.seed = m_request.seed;
    record.logicalDevice = m_request.device.id.empty() ? std::string("cpu:0.0") : m_request.device.id;
    if (world > 1)
        record.logicalDevice += " (rank 0 of " + std::to_string(world) + ")";
    record.host = hostName();
    record.pid = getpid();
    record.startTime = nowSeconds();
    m_runId = m_store->createRun(record);
    m_result.runId = m_runId;
    m_writer = std::make_unique<MetricsWriter>(m_request.storeLocation);
    for (const std::string& note : m_result.notices)
        event(EventLevel::Info, note);
    for (const data::DataProblem& problem : m_batches->problems())
        event(EventLevel::Warning, "data: " + problem.file + ": " + problem.reason);
}

// The leader's stages; the run is finished in the store as succeeded, cancelled or failed (then rethrown).
void Run::trainLeaderStages()
{
    const auto start = Clock::now();
    try {
        for (const Stage stage : {Stage::Pretrain, Stage::Posttrain}) {
            const int epochs = stageEpochs(stage);
            if (epochs == 0)
                continue;
            event(EventLevel::Info, std::string(stageName(stage)) + ": " + std::to_string(epochs) + " epoch(s), " +
                                        std::to_string(m_batches->trainSize()) + " training frames, " +
                                        std::to_string(m_batches->validationSize()) +
                                        (m_config.getBool("data.hpo_split") ? " val_hpo" : " validation") +
                                        " frames, batch " + std::to_string(m_batchSize));
            m_result.stages.push_back(trainStage(stage, epochs));
            m_result.finalMetrics = m_result.stages.back().validation;
            if (cancelled())
                break;
        }
        m_result.cancelled = cancelled();
        m_result.totalSeconds = secondsSince(start);
        m_writer->flush();
        m_store->finishRun(m_runId, m_result.cancelled ? RunStatus::Cancelled : RunStatus::Succeeded, 0,
                           m_result.cancelled ? "cancelled" : "");
    } catch (const std::exception& e) {
        try {
            m_writer->flush();
        } catch (const std::exception&) {
        }
        m_store->finishRun(m_runId, RunStatus::Failed, 1, e.what());
        throw;
    }
}

TrainResult Run::execute()
{
    checkInput();
    setUpTraining();
    if (!m_leader) {
        m_result = TrainResult{};
        for (const Stage stage : {Stage::Pretrain, Stage::Posttrain})
            if (const int epochs = stageEpochs(stage); epochs > 0)
                m_result.stages.push_back(trainStage(stage, epochs));
        return m_result;
    }
    openRunRecord();
    trainLeaderStages();
    return m_result;
}

} // namespace internal

TrainResult train(const TrainRequest& request)
{
    if (!request.config)
        throw RuntimeError("train: no configuration given");
    internal::Run run(request);
    return run.execute();
}

} // namespace pitwall::engine
