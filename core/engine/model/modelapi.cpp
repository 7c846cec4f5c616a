#include "core/engine/model/modelapi.h"

#include "core/util/error.h"
#include "core/util/paths.h"

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

std::unique_ptr<Model> createModel(const ResolvedConfig& config, const DataSpec& spec)
{
    // Model plugins stay loaded for the life of the process: a model's code must outlive every model object.
    static std::mutex mutex;
    static std::vector<PluginLibrary> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    const std::string name = config.getString("experiment.model");
    const PluginLibrary* library = nullptr;
    for (const PluginLibrary& l : loaded)
        if (name == l.info().name)
            library = &l;
    if (!library) {
        const PluginScan scan = scanPlugins(pluginSearchPath());
        loaded.push_back(requirePlugin(scan, name, PluginKind::Model));
        library = &loaded.back();
    }
    auto create = reinterpret_cast<CreateModelFunction>(library->symbol(PITWALL_CREATE_MODEL_SYMBOL));
    if (!create)
        throw InputError(SourceLocation{library->file().string()},
                         "model plugin '" + name + "' exports no '" PITWALL_CREATE_MODEL_SYMBOL "'");
    return std::unique_ptr<Model>(create(&config, &spec));
}

} // namespace pitwall::engine
