#include "core/engine/model/modelapi.h"

#include "core/util/error.h"
#include "core/util/paths.h"

#include <deque>
#include <mutex>

namespace pitwall::engine {

const char* stageName(Stage stage) { return stage == Stage::Pretrain ? "pretrain" : "posttrain"; }

const torch::Tensor& Batch::at(const std::string& name) const
{
    auto it = tensors.find(name);
    if (it == tensors.end())
        throw RuntimeError("the batch has no tensor '" + name + "' (the dataset does not provide what the model needs)");
    return it->second;
}

Batch Batch::to(const torch::Device& device, bool nonBlocking) const
{
    Batch out;
    out.size = size;
    for (const auto& [name, tensor] : tensors)
        out.tensors[name] = tensor.to(device, nonBlocking);
    return out;
}

void MetricAccumulator::add(const std::string& key, double sum, double count)
{
    auto& [s, c] = m_sums[key];
    s += sum;
    c += count;
}

std::map<std::string, double> MetricAccumulator::means() const
{
    std::map<std::string, double> out;
    for (const auto& [key, sc] : m_sums)
        if (sc.second > 0)
            out[key] = sc.first / sc.second;
    return out;
}

torch::Tensor& MetricAccumulator::state(const std::string& key, const std::function<torch::Tensor()>& init)
{
    auto it = m_states.find(key);
    if (it == m_states.end())
        it = m_states.emplace(key, init()).first;
    return it->second;
}

namespace {

// The model plugin named by experiment.model. Model plugins stay loaded for the life of the process: a model's
// code must outlive every model object.
const PluginLibrary& modelLibrary(const ResolvedConfig& config)
{
    static std::mutex mutex;
    static std::deque<PluginLibrary> loaded; // deque: references stay valid as it grows
    std::lock_guard<std::mutex> lock(mutex);
    const std::string name = config.getString("experiment.model");
    for (const PluginLibrary& l : loaded)
        if (name == l.info().name)
            return l;
    const PluginScan scan = scanPlugins(pluginSearchPath());
    loaded.push_back(requirePlugin(scan, name, PluginKind::Model));
    return loaded.back();
}

} // namespace

std::unique_ptr<Model> createModel(const ResolvedConfig& config, const DataSpec& spec)
{
    const PluginLibrary& library = modelLibrary(config);
    auto create = reinterpret_cast<CreateModelFunction>(library.symbol(PITWALL_CREATE_MODEL_SYMBOL));
    if (!create)
        throw InputError(SourceLocation{library.file().string()}, "model plugin '" + std::string(library.info().name) +
                                                                      "' exports no '" PITWALL_CREATE_MODEL_SYMBOL "'");
    return std::unique_ptr<Model>(create(&config, &spec));
}

ModelPlan modelPlan(const ResolvedConfig& config)
{
    ModelPlan plan;
    if (auto declare = reinterpret_cast<ModelPlanFunction>(modelLibrary(config).symbol(PITWALL_MODEL_PLAN_SYMBOL)))
        declare(&config, &plan);
    return plan;
}

} // namespace pitwall::engine
