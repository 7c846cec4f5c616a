// Milliseconds per TransFuser-lite training step (forward + losses + backward + AdamW(amsgrad) step) on
// random but valid inputs, as one JSON line. Its reference is the PyTorch twin tests/bench/transfuser_twin.py;
// tests/bench/run_transfuser_step_bench.py runs both side by side and prints the ratios.
//
// bench_transfuser_step [--threads N=2] [--batch B=16] [--width W] [--stage pretrain|posttrain] [--warmup N]
//                       [--steps M] [--seed S] [--no-dropout] [--dump DIR] [key=value ...]
//
// key=value are config overrides (e.g. policy.transfuser.upsample_perspective_logits=true,
// training.optimization.precision=bf16); image and BEV sizes come from data.synthetic.*. The plugin schema
// is found on $PITWALL_PLUGIN_PATH. --dump DIR writes the initial weights, the batch and the losses of the
// first two steps (no timing) so the twin can check that it computes the same numbers; --no-dropout sets
// every dropout to 0 (needed for that check).
#include "core/engine/model/modelapi.h"
#include "core/engine/train/framebatch.h"
#include "core/engine/train/precision.h"
#include "core/util/error.h"
#include "transfuser.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <time.h>

using namespace pitwall;
using namespace pitwall::engine;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of the whole process (all threads), in ms: less sensitive than wall time to other processes
// on a shared machine, but it counts OpenMP's spin-waiting too.
double processCpuMs()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n == 0 ? 0.0 : (n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]));
}

double mean(const std::vector<double>& values)
{
    return values.empty() ? 0.0
                          : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

struct Arguments {
    int threads = 2;
    std::string batch = "16";
    int warmup = 3;
    int steps = 10;
    std::uint64_t seed = 0;
    std::string stage = "pretrain";
    bool noDropout = false;
    std::string dumpDir;
    std::vector<std::string> overrides;
};

[[noreturn]] void usage(const std::string& problem)
{
    std::fprintf(stderr,
                 "bench_transfuser_step: %s\nusage: bench_transfuser_step [--threads N] [--batch B] [--width W] "
                 "[--stage pretrain|posttrain] [--warmup N] [--steps M] [--seed S] [--no-dropout] [--dump DIR] "
                 "[key=value ...]\n",
                 problem.c_str());
    std::exit(2);
}

Arguments parseArguments(int argc, char** argv)
{
    Arguments a;
    auto value = [&](int& i) -> std::string {
        if (i + 1 >= argc)
            usage(std::string(argv[i]) + " needs a value");
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--threads")
            a.threads = std::stoi(value(i));
        else if (arg == "--batch")
            a.batch = value(i);
        else if (arg == "--width")
            a.overrides.push_back("policy.transfuser.width=" + value(i));
        else if (arg == "--stage")
            a.stage = value(i);
        else if (arg == "--warmup")
            a.warmup = std::stoi(value(i));
        else if (arg == "--steps")
            a.steps = std::stoi(value(i));
        else if (arg == "--seed")
            a.seed = std::stoull(value(i));
        else if (arg == "--no-dropout")
            a.noDropout = true;
        else if (arg == "--dump")
            a.dumpDir = value(i);
        else if (arg.find('=') != std::string::npos && arg.rfind("--", 0) != 0)
            a.overrides.push_back(arg);
        else
            usage("unknown argument '" + arg + "'");
    }
    // The batch goes first so that an explicit training.optimization.batch_size=... wins.
    a.overrides.insert(a.overrides.begin(), "training.optimization.batch_size=" + a.batch);
    if (a.stage != "pretrain" && a.stage != "posttrain")
        usage("--stage must be pretrain or posttrain");
    if (a.steps < 1 || a.warmup < 0 || a.threads < 1)
        usage("--steps >= 1, --warmup >= 0 and --threads >= 1");
    return a;
}

DataSpec specFor(const ResolvedConfig& config)
{
    DataSpec spec;
    spec.imageWidth = config.getInt("data.synthetic.image_width");
    spec.imageHeight = config.getInt("data.synthetic.image_height");
    spec.bevWidth = config.getInt("data.synthetic.bev_width");
    spec.bevHeight = config.getInt("data.synthetic.bev_height");
    spec.bevPixelsPerMeter = config.getDouble("data.synthetic.pixels_per_meter");
    spec.waypoints = 8;
    spec.semanticClasses = 10;
    spec.bevSemanticClasses = 13;
    spec.boxClasses = 8;
    spec.maxDepthMeters = 100.0;
    return spec;
}

// Random but valid tensors of framebatch.h's layout. The twin draws the same sequence from the same
// generator, so with the same seed both get the same batch.
Batch randomBatch(const DataSpec& s, std::int64_t b)
{
    const std::int64_t h = s.imageHeight, w = s.imageWidth, hb = s.bevHeight, wb = s.bevWidth;
    Batch batch;
    batch.size = b;
    auto& t = batch.tensors;
    t["rgb"] = torch::randn({b, 3, h, w});
    t["lidar"] = torch::rand({b, 1, hb, wb});
    t["semantic"] = torch::randint(0, s.semanticClasses, {b, h, w}, torch::kLong);
    t["depth"] = torch::rand({b, h, w}) * s.maxDepthMeters;
    t["bev_semantic"] = torch::randint(-1, s.bevSemanticClasses, {b, hb, wb}, torch::kLong);
    // Boxes: 1..24 real rows per sample, the rest padding (class -1, zeros).
    const std::int64_t n = kMaxBoxesPerSample;
    auto count = torch::randint(1, 25, {b, 1}, torch::kLong);
    auto valid = (torch::arange(n, torch::kLong).unsqueeze(0) < count).to(torch::kFloat); // [B, N]
    auto row = torch::rand({b, n}) * static_cast<double>(hb);
    auto col = torch::rand({b, n}) * static_cast<double>(wb);
    auto length = 4 + torch::rand({b, n}) * 16;
    auto widthPx = 2 + torch::rand({b, n}) * 6;
    auto yaw = (torch::rand({b, n}) * 2 - 1) * M_PI;
    auto cls = torch::randint(0, s.boxClasses, {b, n}, torch::kLong).to(torch::kFloat);
    auto speed = torch::rand({b, n}) * 15;
    auto boxes = torch::stack({row, col, length, widthPx, yaw, cls, speed}, 2) * valid.unsqueeze(2);
    boxes.select(2, 5).copy_(cls * valid - (1 - valid)); // padding class -1
    t["boxes"] = boxes;
    t["waypoints"] = (torch::rand({b, s.waypoints, 2}) * 2).cumsum(1);
    t["target_speed"] = torch::rand({b}) * 20;
    t["target_point"] = torch::randn({b, 2}) * 10;
    t["speed"] = torch::rand({b}) * 15;
    t["command"] = torch::randint(0, 6, {b}, torch::kLong);
    return batch;
}

void disableDropout(torch::nn::Module& root)
{
    for (auto& module : root.modules()) {
        if (auto* dropout = module->as<torch::nn::Dropout>())
            dropout->options.p(0.0);
        if (auto* attention = module->as<torch::nn::MultiheadAttention>())
            attention->options.dropout(0.0);
    }
}

// Raw little-endian tensors in one file plus a JSON index (name, dtype, shape, byte offset).
class TensorDump {
public:
    explicit TensorDump(const std::filesystem::path& dir) : m_dir(dir)
    {
        std::filesystem::create_directories(dir);
        m_data.open(dir / "tensors.bin", std::ios::binary | std::ios::trunc);
    }
    void add(const std::string& name, const torch::Tensor& tensor)
    {
        auto t = tensor.detach().contiguous().cpu();
        const std::string dtype = t.scalar_type() == torch::kLong ? "int64" : "float32";
        if (dtype == "float32")
            t = t.to(torch::kFloat);
        const auto bytes = static_cast<std::streamsize>(t.numel() * t.element_size());
        std::string shape;
        for (auto d : t.sizes())
            shape += (shape.empty() ? "" : ",") + std::to_string(d);
        m_entries.push_back("{\"name\":\"" + name + "\",\"dtype\":\"" + dtype + "\",\"shape\":[" + shape +
                            "],\"offset\":" + std::to_string(m_offset) + "}");
        m_data.write(static_cast<const char*>(t.data_ptr()), bytes);
        m_offset += bytes;
    }
    void finish(const std::string& extraJson)
    {
        m_data.close();
        std::ofstream index(m_dir / "index.json", std::ios::trunc);
        index << "{\"tensors\":[";
        for (std::size_t i = 0; i < m_entries.size(); ++i)
            index << (i ? ",\n" : "\n") << m_entries[i];
        index << "],\n" << extraJson << "}\n";
    }

private:
    std::filesystem::path m_dir;
    std::ofstream m_data;
    std::vector<std::string> m_entries;
    std::streamsize m_offset = 0;
};

std::string lossesJson(const LossOutput& loss)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.9g", loss.total.item<double>());
    std::string out = std::string("{\"total\":") + buffer;
    for (const auto& [head, value] : loss.heads) {
        std::snprintf(buffer, sizeof buffer, "%.9g", value.item<double>());
        out += ",\"" + head + "\":" + buffer;
    }
    return out + "}";
}

std::int64_t countParameters(const std::vector<torch::Tensor>& parameters)
{
    std::int64_t n = 0;
    for (const auto& p : parameters)
        n += p.numel();
    return n;
}

double loadAverage()
{
    double load = -1;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1)
            load = -1;
        std::fclose(f);
    }
    return load;
}

} // namespace

int main(int argc, char** argv)
{
    const Arguments args = parseArguments(argc, argv);
    try {
        at::set_num_threads(args.threads);
        at::set_num_interop_threads(1);
        const ResolvedConfig config = resolveConfig(loadSchema(), {}, args.overrides);
        const DataSpec spec = specFor(config);
        const std::int64_t batchSize = config.getInt("training.optimization.batch_size");
        const Precision precision = precisionFor(config, torch::kCPU);
        const Stage stage = args.stage == "posttrain" ? Stage::Posttrain : Stage::Pretrain;

        torch::manual_seed(args.seed);
        std::unique_ptr<Model> model(transfuser::createTransfuserModel(config, spec));
        model->module().train();
        if (args.noDropout)
            disableDropout(model->module());
        model->setStage(stage);
        const auto parameters = model->trainableParameters();
        torch::optim::AdamW optimizer(parameters,
                                      torch::optim::AdamWOptions(config.getDouble("training.optimization.lr"))
                                          .weight_decay(config.getDouble("training.optimization.weight_decay"))
                                          .amsgrad(true));
        torch::manual_seed(args.seed + 1);
        const Batch batch = randomBatch(spec, batchSize);

        auto step = [&](double* forwardMs, double* backwardMs, double* optimizerMs) {
            const auto start = Clock::now();
            optimizer.zero_grad();
            LossOutput loss;
            {
                AutocastGuard autocast(precision, torch::kCPU);
                loss = model->computeLoss(batch);
            }
            const auto forwardEnd = Clock::now();
            loss.total.backward();
            const auto backwardEnd = Clock::now();
            optimizer.step();
            if (forwardMs) {
                *forwardMs = std::chrono::duration<double, std::milli>(forwardEnd - start).count();
                *backwardMs = std::chrono::duration<double, std::milli>(backwardEnd - forwardEnd).count();
                *optimizerMs = msSince(backwardEnd);
            }
            return loss;
        };

        const std::int64_t totalParameters = countParameters(model->module().parameters());
        const std::int64_t trainable = countParameters(parameters);
        if (!args.dumpDir.empty()) {
            TensorDump dump(args.dumpDir);
            for (const auto& item : model->module().named_parameters())
                dump.add("param:" + item.key(), item.value());
            for (const auto& item : model->module().named_buffers())
                dump.add("buffer:" + item.key(), item.value());
            for (const auto& [name, tensor] : batch.tensors)
                dump.add("input:" + name, tensor);
            const LossOutput first = step(nullptr, nullptr, nullptr);
            const LossOutput second = step(nullptr, nullptr, nullptr);
            dump.finish("\"parameters\":" + std::to_string(totalParameters) +
                        ",\"trainable_parameters\":" + std::to_string(trainable) +
                        ",\"losses_step1\":" + lossesJson(first) + ",\"losses_step2\":" + lossesJson(second));
            std::printf("{\"dumped\":\"%s\",\"parameters\":%lld,\"trainable_parameters\":%lld}\n", args.dumpDir.c_str(),
                        static_cast<long long>(totalParameters), static_cast<long long>(trainable));
            return 0;
        }

        const double loadBefore = loadAverage();
        double lastLoss = 0;
        for (int i = 0; i < args.warmup; ++i)
            lastLoss = step(nullptr, nullptr, nullptr).total.item<double>();
        std::vector<double> stepMs, cpuMs, forwardMs, backwardMs, optimizerMs;
        for (int i = 0; i < args.steps; ++i) {
            double f = 0, b = 0, o = 0;
            const double cpuStart = processCpuMs();
            const auto start = Clock::now();
            const LossOutput loss = step(&f, &b, &o);
            stepMs.push_back(msSince(start));
            cpuMs.push_back(processCpuMs() - cpuStart);
            forwardMs.push_back(f);
            backwardMs.push_back(b);
            optimizerMs.push_back(o);
            lastLoss = loss.total.item<double>();
        }
        if (!std::isfinite(lastLoss))
            throw RuntimeError("the loss is not finite: " + std::to_string(lastLoss));
        const double medianMs = median(stepMs);
        std::string overrides;
        for (const auto& o : args.overrides)
            overrides += (overrides.empty() ? "\"" : ",\"") + o + "\"";
        std::printf(
            "{\"impl\":\"cpp\",\"threads\":%d,\"batch\":%lld,\"width\":%lld,\"stage\":\"%s\",\"precision\":\"%s\","
            "\"image\":[%lld,%lld],\"bev\":[%lld,%lld],\"parameters\":%lld,\"trainable_parameters\":%lld,"
            "\"warmup\":%d,\"steps\":%d,\"median_ms\":%.3f,\"mean_ms\":%.3f,\"min_ms\":%.3f,\"cpu_ms\":%.3f,"
            "\"forward_ms\":%.3f,\"backward_ms\":%.3f,\"optimizer_ms\":%.3f,\"samples_per_s\":%.2f,"
            "\"last_loss\":%.6f,\"load_before\":%.2f,\"load_after\":%.2f,\"overrides\":[%s]}\n",
            args.threads, static_cast<long long>(batchSize), config.getInt("policy.transfuser.width"),
            args.stage.c_str(), config.getString("training.optimization.precision").c_str(),
            static_cast<long long>(spec.imageWidth), static_cast<long long>(spec.imageHeight),
            static_cast<long long>(spec.bevWidth), static_cast<long long>(spec.bevHeight),
            static_cast<long long>(totalParameters), static_cast<long long>(trainable), args.warmup, args.steps,
            medianMs, mean(stepMs), *std::min_element(stepMs.begin(), stepMs.end()), median(cpuMs), median(forwardMs),
            median(backwardMs), median(optimizerMs), static_cast<double>(batchSize) * 1000.0 / medianMs, lastLoss,
            loadBefore, loadAverage(), overrides.c_str());
        return 0;
    } catch (const InputError& e) {
        std::fprintf(stderr, "bench_transfuser_step: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_transfuser_step: %s\n", e.what());
        return 1;
    }
}
