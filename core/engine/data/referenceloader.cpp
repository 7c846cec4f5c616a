// Reference mode of the batch loader: the PyTorch DataLoader's design inside Pitwall, so the two can be compared
// on the same files. Worker processes (forked, one intra-op thread each, as DataLoader sets) receive the index
// list of a whole batch (batch g goes to worker g mod W, at most `prefetchBatches` outstanding per worker, as
// prefetch_factor); each sample becomes its own tensors step by step as torchvision's tensor transforms do
// (full-scale decode to a new uint8 tensor, to float, crop with zero padding, bilinear resize, flip, RGB->HSV->RGB
// jitter, normalise), then the batch is collated with torch::stack straight into shared memory, and the main
// process hands out a tensor over that memory (DataLoader maps each batch's shared memory the same way).
// With data.use_preprocessed a worker reads each image from the pre-processed cache (decoded and resized once, as
// AutoSpeed's .npy arrays) into a new uint8 tensor instead of decoding it; the transforms are the same.
#include "core/engine/data/loader.h"

#include "core/util/error.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace pitwall::engine::data {

using image::DctScale;
using image::JpegDecoder;
using image::JpegHeader;
using image::readWholeFile;

namespace {

namespace F = torch::nn::functional;

// Repeats `io` (one send or read of at most the bytes left) until `size` bytes have moved; false on end of file
// or an error other than EINTR.
template <typename Byte, typename Io>
bool transferAll(Byte* p, std::size_t size, Io io)
{
    while (size > 0) {
        const ssize_t n = io(p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// The channels are Unix stream sockets so that writing to a finished peer fails with EPIPE instead of raising
// SIGPIPE (MSG_NOSIGNAL), in the parent and in the workers alike.
bool writeAll(int fd, const void* data, std::size_t size)
{
    return transferAll(static_cast<const char*>(data), size,
                       [fd](const char* p, std::size_t n) { return ::send(fd, p, n, MSG_NOSIGNAL); });
}

bool readAll(int fd, void* data, std::size_t size)
{
    return transferAll(static_cast<char*>(data), size, [fd](char* p, std::size_t n) { return ::read(fd, p, n); });
}

// torchvision's _rgb2hsv / _hsv2rgb on a [3, H, W] tensor in [0, 1].
torch::Tensor rgbToHsv(const torch::Tensor& img)
{
    const auto rgb = img.unbind(0);
    const torch::Tensor maxc = std::get<0>(img.max(0)), minc = std::get<0>(img.min(0));
    const torch::Tensor eqc = maxc == minc;
    const torch::Tensor cr = maxc - minc;
    const torch::Tensor ones = torch::ones_like(maxc);
    const torch::Tensor s = cr / torch::where(eqc, ones, maxc);
    const torch::Tensor divisor = torch::where(eqc, ones, cr);
    const torch::Tensor rc = (maxc - rgb[0]) / divisor, gc = (maxc - rgb[1]) / divisor, bc = (maxc - rgb[2]) / divisor;
    const torch::Tensor hr = (maxc == rgb[0]) * (bc - gc);
    const torch::Tensor hg = ((maxc == rgb[1]) & (maxc != rgb[0])) * (2.0 + rc - bc);
    const torch::Tensor hb = ((maxc != rgb[1]) & (maxc != rgb[0])) * (4.0 + gc - rc);
    const torch::Tensor h = torch::fmod((hr + hg + hb) / 6.0 + 1.0, 1.0);
    return torch::stack({h, s, maxc});
}

torch::Tensor hsvToRgb(const torch::Tensor& hsv)
{
    const auto c = hsv.unbind(0);
    const torch::Tensor &h = c[0], &s = c[1], &v = c[2];
    torch::Tensor i = torch::floor(h * 6.0);
    const torch::Tensor f = h * 6.0 - i;
    i = i.to(torch::kInt32).remainder(6);
    const torch::Tensor p = (v * (1.0 - s)).clamp(0.0, 1.0);
    const torch::Tensor q = (v * (1.0 - s * f)).clamp(0.0, 1.0);
    const torch::Tensor t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0);
    const torch::Tensor mask = (i.unsqueeze(0) == torch::arange(6, torch::kInt32).view({-1, 1, 1})).to(hsv.dtype());
    const torch::Tensor a1 = torch::stack({v, q, p, p, t, v});
    const torch::Tensor a2 = torch::stack({t, v, v, q, p, p});
    const torch::Tensor a3 = torch::stack({p, p, t, v, v, q});
    return torch::einsum("ijk,xijk->xjk", {mask, torch::stack({a1, a2, a3})});
}

// One sample's pixels as a new uint8 tensor [H, W, 3]: decode_jpeg at full scale, or with a cache the pre-processed
// array copied out (np.load). sourceWidth x sourceHeight: the image's size in the file (boxes and the augmentation
// window are in its pixels). Throws std::runtime_error with the reason when the image cannot be used.
torch::Tensor referencePixels(const SampleRecord& record, std::int64_t index, const PreprocessedCache* cache,
                              JpegDecoder& decoder, std::vector<std::uint8_t>& bytes, int& sourceWidth,
                              int& sourceHeight)
{
    if (cache) {
        const ImageView view = cache->image(index);
        if (!view.pixels)
            throw std::runtime_error("not in the pre-processed cache (it could not be read when the cache was built)");
        sourceWidth = cache->sourceWidth(index);
        sourceHeight = cache->sourceHeight(index);
        torch::Tensor pixels = torch::empty({view.height, view.width, 3}, torch::kUInt8);
        const auto row = static_cast<std::size_t>(view.width) * 3;
        for (int y = 0; y < view.height; ++y)
            std::memcpy(pixels.data_ptr<std::uint8_t>() + static_cast<std::size_t>(y) * row,
                        view.pixels + static_cast<std::ptrdiff_t>(y) * view.stride, row);
        return pixels;
    }
    std::string error;
    JpegHeader header;
    if (!readWholeFile(record.imagePath, bytes, error) || !decoder.readHeader(bytes.data(), bytes.size(), header, error))
        throw std::runtime_error(error);
    torch::Tensor decoded = torch::empty({header.height, header.width, 3}, torch::kUInt8);
    std::vector<std::uint8_t> pixels;
    int w = 0, h = 0;
    if (!decoder.decode(bytes.data(), bytes.size(), DctScale{1, 1}, pixels, w, h, error))
        throw std::runtime_error(error);
    std::memcpy(decoded.data_ptr<std::uint8_t>(), pixels.data(), decoded.numel());
    sourceWidth = header.width;
    sourceHeight = header.height;
    return decoded;
}

// One sample the torchvision way. Throws std::runtime_error with the reason when the image cannot be used.
torch::Tensor referenceSample(const SampleRecord& record, const SampleKey& key, const SampleOptions& o,
                              const PreprocessedCache* cache, JpegDecoder& decoder, std::vector<std::uint8_t>& bytes,
                              std::vector<BoxLabel>& boxes)
{
    int sourceWidth = 0, sourceHeight = 0;
    const torch::Tensor pixels = referencePixels(record, key.index, cache, decoder, bytes, sourceWidth, sourceHeight);
    const std::int64_t viewHeight = pixels.size(0), viewWidth = pixels.size(1);
    torch::Tensor img = pixels.permute({2, 0, 1}).to(torch::kFloat).div(255.0).contiguous(); // ConvertImageDtype

    const SampleAugment a = drawAugment(key, o.augment, sourceWidth, sourceHeight, o.outputWidth, o.outputHeight);
    // The window in the pixels at hand (the cache's are smaller than the file's).
    const double toViewX = static_cast<double>(viewWidth) / sourceWidth;
    const double toViewY = static_cast<double>(viewHeight) / sourceHeight;
    // F.resized_crop: integer box, zero padding where it leaves the image, then bilinear (no antialias).
    const auto top = static_cast<std::int64_t>(std::lround(a.window.y * toViewY));
    const auto left = static_cast<std::int64_t>(std::lround(a.window.x * toViewX));
    const auto height = std::max<std::int64_t>(1, std::lround(a.window.height * toViewY));
    const auto width = std::max<std::int64_t>(1, std::lround(a.window.width * toViewX));
    const std::int64_t y0 = std::clamp<std::int64_t>(top, 0, viewHeight);
    const std::int64_t y1 = std::clamp<std::int64_t>(top + height, 0, viewHeight);
    const std::int64_t x0 = std::clamp<std::int64_t>(left, 0, viewWidth);
    const std::int64_t x1 = std::clamp<std::int64_t>(left + width, 0, viewWidth);
    torch::Tensor crop = img.slice(1, y0, y1).slice(2, x0, x1);
    crop = torch::constant_pad_nd(crop, {x0 - left, left + width - x1, y0 - top, top + height - y1}, 0.0);
    img = F::interpolate(crop.unsqueeze(0), F::InterpolateFuncOptions()
                                                .size(std::vector<std::int64_t>{o.outputHeight, o.outputWidth})
                                                .mode(torch::kBilinear)
                                                .align_corners(false))
              .squeeze(0);
    if (a.flip)
        img = img.flip({2});
    if (!a.color.identity()) {
        const auto hsv = rgbToHsv(img).unbind(0);
        const torch::Tensor hue = torch::remainder(hsv[0] + a.color.hueShiftTurns, 1.0);
        const torch::Tensor sat = (hsv[1] * a.color.saturationGain).clamp(0.0, 1.0);
        const torch::Tensor val = (hsv[2] * a.color.valueGain).clamp(0.0, 1.0);
        img = hsvToRgb(torch::stack({hue, sat, val}));
    }
    const torch::Tensor mean = torch::tensor({o.normalization.mean[0], o.normalization.mean[1],
                                              o.normalization.mean[2]}).div(255.0).view({3, 1, 1});
    const torch::Tensor std = torch::tensor({o.normalization.std[0], o.normalization.std[1],
                                             o.normalization.std[2]}).div(255.0).view({3, 1, 1});
    boxes = transformBoxes(boxesInPixels(record, sourceWidth, sourceHeight), a, o.outputWidth, o.outputHeight);
    return (img - mean) / std;
}

// Shared memory of one worker: `slots` batch buffers. Unmapped when the last batch tensor over it is gone.
struct SharedRegion {
    float* base = nullptr;
    std::size_t bytes = 0;
    std::atomic<int> held{0}; // slots handed out and not yet released by the consumer
    std::vector<std::atomic<bool>> busy;
    explicit SharedRegion(std::size_t total, int slots) : bytes(total), busy(static_cast<std::size_t>(slots))
    {
        void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            throw RuntimeError(std::string("reference loader: cannot map shared memory: ") + std::strerror(errno));
        base = static_cast<float*>(p);
    }
    ~SharedRegion() { ::munmap(base, bytes); }
};

struct TaskHeader {
    std::int64_t batch, epoch, step;
    std::int32_t slot, count;
};

struct Worker {
    pid_t pid = -1;
    int taskFd = -1, resultFd = -1;
    std::shared_ptr<SharedRegion> region;
    int outstanding = 0;
};

class ReferenceLoader : public BatchLoader {
public:
    ReferenceLoader(std::shared_ptr<const DatasetIndex> index, const LoaderOptions& options);
    ~ReferenceLoader() override;

    bool next(LoadedBatch& batch) override;
    std::int64_t batchesPerEpoch() const override { return m_batchesPerEpoch; }
    std::vector<DataProblem> problems() const override;
    double helperCpuSeconds() const override;
    CacheStatus cacheStatus() const override { return m_cache ? m_cache->status() : CacheStatus{}; }
    int workers() const override { return static_cast<int>(m_workers.size()); }

private:
    void startWorker();
    void stopWorkers();
    [[noreturn]] void workerMain(int taskFd, int resultFd, SharedRegion& region);
    void issueRequests();

    std::shared_ptr<const DatasetIndex> m_index;
    LoaderOptions m_options;
    EpochSampler m_sampler;
    std::int64_t m_batchesPerEpoch = 0, m_totalBatches = -1;
    std::size_t m_batchFloats = 0;
    int m_slots = 0;
    std::vector<Worker> m_workers;
    std::int64_t m_nextRequest = 0, m_handed = 0;
    std::int64_t m_cachedEpoch = -1;
    std::vector<std::int64_t> m_epochIndices;
    std::vector<DataProblem> m_loadProblems;
    std::set<std::string> m_badFiles;
    std::unique_ptr<PreprocessedCache> m_cache; // data.use_preprocessed: built before the workers fork, shared by them
    std::vector<DataProblem> m_cacheProblems;
};

ReferenceLoader::ReferenceLoader(std::shared_ptr<const DatasetIndex> index, const LoaderOptions& options)
    : m_index(std::move(index)), m_options(options),
      m_sampler(static_cast<std::int64_t>(m_index->samples.size()), options.shard)
{
    m_batchesPerEpoch = m_sampler.samplesPerEpoch() / std::max(1, options.batchSize);
    if (m_batchesPerEpoch == 0)
        throw InputError("each logical device gets " + std::to_string(m_sampler.samplesPerEpoch()) +
                         " samples per epoch, fewer than one batch of " + std::to_string(options.batchSize));
    if (options.epochs > 0)
        m_totalBatches = options.epochs * m_batchesPerEpoch;
    m_options.prefetchBatches = std::max(1, options.prefetchBatches);
    m_batchFloats = static_cast<std::size_t>(options.batchSize) * 3 * options.sample.outputWidth *
                    options.sample.outputHeight;
    m_slots = m_options.prefetchBatches + 2; // two may be held by the consumer, the rest are in flight
    const int count = options.threads > 0 ? options.threads : cpuShareThreads();
    if (options.usePreprocessed) {
        m_cache = openPreprocessedCache(*m_index, options, count, m_cacheProblems);
        for (const DataProblem& p : m_cacheProblems)
            m_badFiles.insert(p.file);
    }
    try {
        for (int w = 0; w < count; ++w)
            startWorker();
    } catch (...) {
        stopWorkers(); // the destructor does not run after a throwing constructor
        throw;
    }
}

void ReferenceLoader::startWorker()
{
    Worker worker;
    worker.region = std::make_shared<SharedRegion>(m_batchFloats * sizeof(float) * m_slots, m_slots);
    int task[2], result[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, task) != 0)
        throw RuntimeError(std::string("reference loader: socketpair: ") + std::strerror(errno));
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, result) != 0) {
        ::close(task[0]);
        ::close(task[1]);
        throw RuntimeError(std::string("reference loader: socketpair: ") + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd : {task[0], task[1], result[0], result[1]})
            ::close(fd);
        throw RuntimeError(std::string("reference loader: fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(task[1]);
        ::close(result[0]);
        for (const Worker& other : m_workers) { // siblings' channels must not keep them alive
            ::close(other.taskFd);
            ::close(other.resultFd);
        }
        try {
            workerMain(task[0], result[1], *worker.region);
        } catch (...) {
        }
        ::_exit(1); // never return into the parent's code
    }
    ::close(task[0]);
    ::close(result[1]);
    worker.pid = pid;
    worker.taskFd = task[1];
    worker.resultFd = result[0];
    m_workers.push_back(std::move(worker));
}

void ReferenceLoader::stopWorkers()
{
    // Workers hold nothing worth finishing (DataLoader terminates its workers too).
    for (Worker& w : m_workers) {
        ::close(w.taskFd);
        ::close(w.resultFd);
        ::kill(w.pid, SIGKILL);
    }
    for (Worker& w : m_workers) {
        int status = 0;
        ::waitpid(w.pid, &status, 0);
    }
    m_workers.clear();
}

ReferenceLoader::~ReferenceLoader()
{
    stopWorkers();
}

void ReferenceLoader::workerMain(int taskFd, int resultFd, SharedRegion& region)
{
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT}) // not the parent's handlers
        std::signal(signal, SIG_DFL);
    torch::set_num_threads(1); // as DataLoader's workers
    JpegDecoder decoder;
    std::vector<std::uint8_t> bytes;
    const SampleOptions& o = m_options.sample;
    TaskHeader task{};
    while (readAll(taskFd, &task, sizeof task)) {
        std::vector<std::int64_t> indices(static_cast<std::size_t>(task.count));
        if (!readAll(taskFd, indices.data(), indices.size() * sizeof(std::int64_t)))
            break;
        std::vector<torch::Tensor> samples;
        std::string message;
        for (std::int64_t index : indices) {
            const SampleRecord& record = m_index->samples[static_cast<std::size_t>(index)];
            std::vector<BoxLabel> boxes;
            std::uint8_t ok = 1;
            std::string error;
            try {
                samples.push_back(referenceSample(record, {m_options.shard.seed, task.epoch, index, m_options.shard.rank},
                                                  o, m_cache.get(), decoder, bytes, boxes));
            } catch (const std::exception& e) {
                samples.push_back(torch::zeros({3, o.outputHeight, o.outputWidth}));
                ok = 0;
                error = e.what();
            }
            const auto n = static_cast<std::int32_t>(boxes.size());
            const auto length = static_cast<std::int32_t>(error.size());
            message.append(reinterpret_cast<const char*>(&index), sizeof index);
            message.append(reinterpret_cast<const char*>(&ok), 1);
            message.append(reinterpret_cast<const char*>(&n), sizeof n);
            message.append(reinterpret_cast<const char*>(boxes.data()), boxes.size() * sizeof(BoxLabel));
            message.append(reinterpret_cast<const char*>(&length), sizeof length);
            message.append(error);
        }
        // default_collate: stack into shared memory.
        torch::Tensor out = torch::from_blob(region.base + static_cast<std::size_t>(task.slot) * m_batchFloats,
                                             {task.count, 3, o.outputHeight, o.outputWidth}, torch::kFloat);
        torch::stack_out(out, samples, 0);
        const auto size = static_cast<std::int64_t>(message.size());
        if (!writeAll(resultFd, &task, sizeof task) || !writeAll(resultFd, &size, sizeof size) ||
            !writeAll(resultFd, message.data(), message.size()))
            break;
    }
    ::_exit(0);
}

void ReferenceLoader::issueRequests()
{
    const int W = static_cast<int>(m_workers.size());
    while (m_totalBatches < 0 || m_nextRequest < m_totalBatches) {
        Worker& w = m_workers[static_cast<std::size_t>(m_nextRequest % W)];
        if (w.outstanding >= m_options.prefetchBatches)
            return;
        int slot = -1;
        for (int s = 0; s < m_slots && slot < 0; ++s)
            if (!w.region->busy[static_cast<std::size_t>(s)].load())
                slot = s;
        if (slot < 0)
            return;
        w.region->busy[static_cast<std::size_t>(slot)] = true;
        const std::int64_t epoch = m_options.firstEpoch + m_nextRequest / m_batchesPerEpoch,
                           step = m_nextRequest % m_batchesPerEpoch;
        if (epoch != m_cachedEpoch) {
            m_epochIndices = m_sampler.indices(epoch);
            m_cachedEpoch = epoch;
        }
        const TaskHeader task{m_nextRequest, epoch, step, slot, m_options.batchSize};
        const std::int64_t* indices = m_epochIndices.data() + step * m_options.batchSize;
        if (!writeAll(w.taskFd, &task, sizeof task) ||
            !writeAll(w.taskFd, indices, sizeof(std::int64_t) * static_cast<std::size_t>(m_options.batchSize)))
            throw RuntimeError("reference loader: a worker process stopped taking work");
        ++w.outstanding;
        ++m_nextRequest;
    }
}

bool ReferenceLoader::next(LoadedBatch& batch)
{
    if (m_totalBatches >= 0 && m_handed >= m_totalBatches)
        return false;
    issueRequests();
    Worker& w = m_workers[static_cast<std::size_t>(m_handed % static_cast<std::int64_t>(m_workers.size()))];
    TaskHeader task{};
    std::int64_t size = 0;
    std::string message;
    if (!readAll(w.resultFd, &task, sizeof task) || !readAll(w.resultFd, &size, sizeof size))
        throw RuntimeError("reference loader: worker process " + std::to_string(w.pid) + " exited");
    message.resize(static_cast<std::size_t>(size));
    if (!readAll(w.resultFd, message.data(), message.size()) || task.batch != m_handed)
        throw RuntimeError("reference loader: worker process " + std::to_string(w.pid) + " answered out of turn");
    --w.outstanding;

    const SampleOptions& o = m_options.sample;
    float* data = w.region->base + static_cast<std::size_t>(task.slot) * m_batchFloats;
    const std::vector<std::int64_t> shape{task.count, 3, o.outputHeight, o.outputWidth};
    auto& busy = w.region->busy[static_cast<std::size_t>(task.slot)];
    if (w.region->held.load() >= 2) { // the consumer keeps old batches: copy so the worker keeps its slots
        batch.images = torch::from_blob(data, shape, torch::kFloat).clone();
        busy = false;
    } else {
        ++w.region->held;
        std::shared_ptr<SharedRegion> region = w.region;
        const int slot = task.slot;
        batch.images = torch::from_blob(data, shape, [region, slot](void*) {
            region->busy[static_cast<std::size_t>(slot)] = false;
            --region->held;
        }, torch::kFloat);
    }
    batch.epoch = task.epoch;
    batch.step = task.step;
    batch.indices.clear();
    batch.boxes.assign(static_cast<std::size_t>(task.count), {});
    batch.valid.assign(static_cast<std::size_t>(task.count), 0);
    batch.decodedEighths.assign(static_cast<std::size_t>(task.count), 0);
    std::size_t at = 0;
    for (int k = 0; k < task.count; ++k) {
        std::int64_t index = 0;
        std::memcpy(&index, message.data() + at, sizeof index);
        at += sizeof index;
        batch.indices.push_back(index);
        std::uint8_t ok = 0;
        std::int32_t n = 0, length = 0;
        std::memcpy(&ok, message.data() + at, 1);
        std::memcpy(&n, message.data() + at + 1, sizeof n);
        at += 1 + sizeof n;
        auto& boxes = batch.boxes[static_cast<std::size_t>(k)];
        boxes.resize(static_cast<std::size_t>(n));
        std::memcpy(boxes.data(), message.data() + at, n * sizeof(BoxLabel));
        at += n * sizeof(BoxLabel);
        std::memcpy(&length, message.data() + at, sizeof length);
        at += sizeof length;
        batch.valid[static_cast<std::size_t>(k)] = ok;
        // decode_jpeg: always full scale; nothing decoded from the cache.
        batch.decodedEighths[static_cast<std::size_t>(k)] = ok && !m_cache ? 8 : 0;
        const std::string& path = m_index->samples[static_cast<std::size_t>(index)].imagePath;
        if (!ok && m_badFiles.insert(path).second)
            m_loadProblems.push_back({path, message.substr(at, static_cast<std::size_t>(length))});
        at += static_cast<std::size_t>(length);
    }
    ++m_handed;
    issueRequests();
    return true;
}

std::vector<DataProblem> ReferenceLoader::problems() const
{
    std::vector<DataProblem> all = m_index->problems;
    all.insert(all.end(), m_cacheProblems.begin(), m_cacheProblems.end());
    all.insert(all.end(), m_loadProblems.begin(), m_loadProblems.end());
    return all;
}

double ReferenceLoader::helperCpuSeconds() const
{
    double seconds = 0;
    const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
    for (const Worker& w : m_workers) {
        std::ifstream in("/proc/" + std::to_string(w.pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto close = text.rfind(')'); // the command name may hold spaces
        if (close == std::string::npos)
            continue;
        std::istringstream fields(text.substr(close + 2));
        std::string field;
        double utime = 0, stime = 0;
        for (int i = 3; fields >> field; ++i) {
            if (i == 14)
                utime = std::stod(field);
            if (i == 15) {
                stime = std::stod(field);
                break;
            }
        }
        seconds += (utime + stime) / tick;
    }
    return seconds;
}

} // namespace

std::unique_ptr<BatchLoader> makeReferenceLoader(std::shared_ptr<const DatasetIndex> index,
                                                 const LoaderOptions& options)
{
    return std::make_unique<ReferenceLoader>(std::move(index), options);
}

} // namespace pitwall::engine::data
