// Pitwall mode of the batch loader: per-sample tasks on a thread pool, rendered straight into the batch tensor.
#include "core/engine/data/loader.h"

#include "core/engine/data/cache.h"
#include "core/util/error.h"

#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace pitwall::engine::data {

using image::scaleEighths;

namespace {

class PitwallLoader : public BatchLoader {
public:
    PitwallLoader(std::shared_ptr<const DatasetIndex> index, const LoaderOptions& options);
    ~PitwallLoader() override;

    bool next(LoadedBatch& batch) override;
    std::int64_t batchesPerEpoch() const override { return m_batchesPerEpoch; }
    std::vector<DataProblem> problems() const override;
    int workers() const override { return static_cast<int>(m_threads.size()); }
    bool pinned() const override { return m_pinned; }
    CacheStatus cacheStatus() const override { return m_cache ? m_cache->status() : CacheStatus{}; }

private:
    struct Pending {
        LoadedBatch batch;
        int remaining = 0;
    };

    void work();
    torch::Tensor allocateBatch();                                  // with m_mutex held
    const std::vector<std::int64_t>& epochIndices(std::int64_t epoch); // with m_mutex held
    bool claimable() const;                                          // with m_mutex held

    std::shared_ptr<const DatasetIndex> m_index;
    LoaderOptions m_options;
    EpochSampler m_sampler;
    std::int64_t m_batchesPerEpoch = 0;
    std::int64_t m_totalBatches = -1; // -1: endless
    std::unique_ptr<PreprocessedCache> m_cache;
    std::vector<DataProblem> m_cacheProblems;
    bool m_pinned = false;

    mutable std::mutex m_mutex;
    std::condition_variable m_ready, m_space;
    std::map<std::int64_t, Pending> m_pending; // by global batch number
    std::int64_t m_nextSample = 0;             // global sample position claimed next
    std::int64_t m_handed = 0;                 // batches handed to the consumer
    std::map<std::int64_t, std::vector<std::int64_t>> m_epochs;
    std::vector<torch::Tensor> m_pool;
    std::vector<DataProblem> m_loadProblems;
    std::set<std::string> m_badFiles;
    std::exception_ptr m_error;
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

std::int64_t batchesPerEpochOf(const EpochSampler& sampler, int batchSize)
{
    if (batchSize < 1)
        throw InputError("the batch size must be at least 1");
    const std::int64_t batches = sampler.samplesPerEpoch() / batchSize;
    if (batches == 0)
        throw InputError("each logical device gets " + std::to_string(sampler.samplesPerEpoch()) +
                         " samples per epoch, fewer than one batch of " + std::to_string(batchSize) +
                         "; use data.replicate_dataset_per_device=true or a smaller batch");
    return batches;
}

PitwallLoader::PitwallLoader(std::shared_ptr<const DatasetIndex> index, const LoaderOptions& options)
    : m_index(std::move(index)), m_options(options),
      m_sampler(static_cast<std::int64_t>(m_index->samples.size()), options.shard)
{
    m_batchesPerEpoch = batchesPerEpochOf(m_sampler, options.batchSize);
    if (options.epochs > 0)
        m_totalBatches = options.epochs * m_batchesPerEpoch;
    m_options.prefetchBatches = std::max(1, options.prefetchBatches);
    const int threads = options.threads > 0 ? options.threads : cpuShareThreads();
    if (options.usePreprocessed) {
        m_cache = openPreprocessedCache(*m_index, options, threads, m_cacheProblems);
        for (const DataProblem& p : m_cacheProblems)
            m_badFiles.insert(p.file);
    }
    m_pinned = options.pinMemory && torch::cuda::is_available();
    for (int t = 0; t < threads; ++t)
        m_threads.emplace_back([this] { work(); });
}

PitwallLoader::~PitwallLoader()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_space.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

bool PitwallLoader::claimable() const
{
    const std::int64_t batch = m_nextSample / m_options.batchSize;
    return batch < m_handed + m_options.prefetchBatches && (m_totalBatches < 0 || batch < m_totalBatches);
}

torch::Tensor PitwallLoader::allocateBatch()
{
    const SampleOptions& s = m_options.sample;
    const std::vector<std::int64_t> shape{m_options.batchSize, 3, s.outputHeight, s.outputWidth};
    if (m_pinned) // LibTorch's caching host allocator recycles pinned blocks once pending copies are done
        return torch::empty(shape, torch::TensorOptions().dtype(torch::kFloat).pinned_memory(true));
    // A buffer nobody else holds (no handle, no view) is reused: a fresh 36 MB tensor costs page faults.
    for (const torch::Tensor& t : m_pool)
        if (t.use_count() == 1 && t.storage().use_count() == 1)
            return t;
    torch::Tensor t = torch::empty(shape, torch::kFloat);
    if (static_cast<int>(m_pool.size()) < m_options.prefetchBatches + 2)
        m_pool.push_back(t);
    return t;
}

const std::vector<std::int64_t>& PitwallLoader::epochIndices(std::int64_t epoch)
{
    auto it = m_epochs.find(epoch);
    if (it != m_epochs.end())
        return it->second;
    // Epochs before the consumer's current one are no longer needed by anyone.
    const std::int64_t oldest = m_options.firstEpoch + m_handed / m_batchesPerEpoch;
    for (auto old = m_epochs.begin(); old != m_epochs.end() && old->first < oldest;)
        old = m_epochs.erase(old);
    return m_epochs.emplace(epoch, m_sampler.indices(epoch)).first->second;
}

void PitwallLoader::work()
{
    SampleRenderer renderer(m_options.sample, m_cache.get());
    const std::int64_t B = m_options.batchSize;
    const std::size_t sampleFloats = 3 * static_cast<std::size_t>(m_options.sample.outputWidth) *
                                     static_cast<std::size_t>(m_options.sample.outputHeight);
    while (true) {
        std::int64_t batch = 0, k = 0;
        float* slot = nullptr;
        const SampleRecord* record = nullptr;
        SampleKey key;
        {
            std::unique_lock lock(m_mutex);
            m_space.wait(lock, [&] { return m_stop || claimable(); });
            if (m_stop)
                return;
            const std::int64_t position = m_nextSample++;
            batch = position / B;
            k = position % B;
            const std::int64_t epoch = m_options.firstEpoch + batch / m_batchesPerEpoch, step = batch % m_batchesPerEpoch;
            try {
                Pending& pending = m_pending[batch];
                if (k == 0) {
                    pending.remaining = static_cast<int>(B);
                    pending.batch.images = allocateBatch();
                    pending.batch.boxes.assign(B, {});
                    pending.batch.indices.assign(B, -1);
                    pending.batch.valid.assign(B, 0);
                    pending.batch.decodedEighths.assign(B, 0);
                    pending.batch.epoch = epoch;
                    pending.batch.step = step;
                }
                const std::int64_t index = epochIndices(epoch)[static_cast<std::size_t>(step * B + k)];
                pending.batch.indices[k] = index;
                slot = pending.batch.images.data_ptr<float>() + k * sampleFloats;
                record = &m_index->samples[static_cast<std::size_t>(index)];
                key = {m_options.shard.seed, epoch, index, m_options.shard.rank};
            } catch (...) {
                m_error = std::current_exception();
                m_ready.notify_all();
                return;
            }
        }
        SampleResult result;
        try {
            result = renderer.render(*record, key, slot);
        } catch (...) {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
            m_ready.notify_all();
            return;
        }
        std::lock_guard lock(m_mutex);
        Pending& pending = m_pending[batch];
        pending.batch.boxes[k] = std::move(result.boxes);
        pending.batch.valid[k] = result.ok ? 1 : 0;
        pending.batch.decodedEighths[k] = result.ok && !m_cache ? static_cast<std::uint8_t>(scaleEighths(result.scale)) : 0;
        if (!result.ok && m_badFiles.insert(record->imagePath).second)
            m_loadProblems.push_back({record->imagePath, result.error});
        if (--pending.remaining == 0)
            m_ready.notify_all();
    }
}

bool PitwallLoader::next(LoadedBatch& batch)
{
    std::unique_lock lock(m_mutex);
    if (m_totalBatches >= 0 && m_handed >= m_totalBatches)
        return false;
    m_ready.wait(lock, [&] {
        const auto it = m_pending.find(m_handed);
        return m_error || (it != m_pending.end() && it->second.remaining == 0 && it->second.batch.images.defined());
    });
    if (m_error)
        std::rethrow_exception(m_error);
    const auto it = m_pending.find(m_handed);
    batch = std::move(it->second.batch);
    m_pending.erase(it);
    ++m_handed;
    lock.unlock();
    m_space.notify_all();
    return true;
}

std::vector<DataProblem> PitwallLoader::problems() const
{
    std::lock_guard lock(m_mutex);
    std::vector<DataProblem> all = m_index->problems;
    all.insert(all.end(), m_cacheProblems.begin(), m_cacheProblems.end());
    all.insert(all.end(), m_loadProblems.begin(), m_loadProblems.end());
    return all;
}

} // namespace

std::unique_ptr<PreprocessedCache> openPreprocessedCache(const DatasetIndex& index, const LoaderOptions& options,
                                                         int threads, std::vector<DataProblem>& problems)
{
    std::string path = options.cachePath;
    if (path.empty())
        path = (std::filesystem::path(index.root) / ".pitwall-cache" / "preprocessed.bin").string();
    std::vector<std::string> sources;
    for (const SampleRecord& s : index.samples)
        sources.push_back(s.imagePath);
    return PreprocessedCache::openOrBuild(path, sources, options.sample.outputWidth, options.sample.outputHeight,
                                          threads, problems);
}

std::unique_ptr<BatchLoader> makeBatchLoader(std::shared_ptr<const DatasetIndex> index, const LoaderOptions& options)
{
    requireSamples(*index);
    if (options.mode == LoaderMode::Reference)
        return makeReferenceLoader(std::move(index), options);
    return std::make_unique<PitwallLoader>(std::move(index), options);
}

torch::Tensor packBoxes(const LoadedBatch& batch, int maxBoxes)
{
    const auto B = static_cast<std::int64_t>(batch.boxes.size());
    torch::Tensor packed = torch::full({B, maxBoxes, 5}, -1.0f);
    packed.narrow(2, 1, 4).zero_();
    auto a = packed.accessor<float, 3>();
    for (std::int64_t i = 0; i < B; ++i) {
        const auto& boxes = batch.boxes[static_cast<std::size_t>(i)];
        for (int j = 0; j < maxBoxes && j < static_cast<int>(boxes.size()); ++j) {
            const BoxLabel& b = boxes[static_cast<std::size_t>(j)];
            a[i][j][0] = static_cast<float>(b.classId);
            a[i][j][1] = b.x0;
            a[i][j][2] = b.y0;
            a[i][j][3] = b.x1;
            a[i][j][4] = b.y1;
        }
    }
    return packed;
}

} // namespace pitwall::engine::data
