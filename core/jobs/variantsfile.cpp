#include "core/jobs/variantsfile.h"

#include "core/config/yamlload.h"
#include "core/util/error.h"
#include "core/util/paths.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

namespace pitwall {

namespace fs = std::filesystem;

namespace {

SourceLocation at(const std::string& file, const YAML::Node& node)
{
    SourceLocation where{file};
    if (!node.Mark().is_null()) {
        where.line = node.Mark().line + 1;
        where.column = node.Mark().column + 1;
    }
    return where;
}

std::vector<std::string> stringList(const std::string& file, const YAML::Node& node, const std::string& what)
{
    std::vector<std::string> out;
    if (!node)
        return out;
    if (node.IsScalar())
        return {node.Scalar()};
    if (!node.IsSequence())
        throw InputError(at(file, node), "'" + what + "' must be a string or a list of strings");
    for (const YAML::Node& item : node) {
        if (!item.IsScalar())
            throw InputError(at(file, item), "'" + what + "' entries must be strings");
        out.push_back(item.Scalar());
    }
    return out;
}

std::vector<std::string> relativeTo(const std::string& file, const std::vector<std::string>& paths)
{
    std::vector<std::string> out;
    for (const std::string& p : paths)
        out.push_back(fs::path(p).is_absolute() ? p : (fs::path(file).parent_path() / p).lexically_normal().string());
    return out;
}

YAML::Node loadRoot(const std::string& path)
{
    const YAML::Node root = loadYaml(readTextFile(path), path);
    if (!root.IsMap())
        throw InputError(SourceLocation{path}, "a variants file is a mapping with 'name', 'seeds' and 'variants'");
    static const std::vector<std::string> known = {"name", "base", "seeds", "quality", "driving", "table", "variants"};
    for (const auto& item : root)
        if (std::find(known.begin(), known.end(), item.first.Scalar()) == known.end())
            throw InputError(at(path, item.first),
                             "unknown field '" + item.first.Scalar() +
                                 "' (known: name, base, seeds, quality, driving, table, variants)");
    return root;
}

std::vector<std::int64_t> readSeeds(const std::string& path, const YAML::Node& node)
{
    std::vector<std::int64_t> seeds;
    try {
        if (node)
            for (const YAML::Node& s : node)
                seeds.push_back(s.as<std::int64_t>());
    } catch (const YAML::Exception&) {
        throw InputError(at(path, node), "'seeds' must be a list of integers");
    }
    if (seeds.empty())
        seeds = {0};
    return seeds;
}

void readQuality(const std::string& path, const YAML::Node& q, VariantsFile& file)
{
    if (!q.IsMap())
        throw InputError(at(path, q), "'quality' is a mapping {metric, label, better: lower|higher}");
    if (q["metric"])
        file.qualityMetric = q["metric"].as<std::string>();
    file.qualityLabel = q["label"] ? q["label"].as<std::string>() : file.qualityMetric;
    if (q["better"]) {
        const std::string better = q["better"].as<std::string>();
        if (better != "lower" && better != "higher")
            throw InputError(at(path, q["better"]), "'better' must be lower or higher, got '" + better + "'");
        file.qualityHigherIsBetter = better == "higher";
    }
}

void readDriving(const std::string& path, const YAML::Node& d, VariantsFile& file)
{
    if (!d.IsMap())
        throw InputError(at(path, d), "'driving' is a mapping {routes, route_seconds, seed}");
    for (const auto& item : d)
        if (item.first.Scalar() != "routes" && item.first.Scalar() != "route_seconds" && item.first.Scalar() != "seed")
            throw InputError(at(path, item.first), "unknown field '" + item.first.Scalar() +
                                                       "' in 'driving' (known: routes, route_seconds, seed)");
    file.driving.enabled = true;
    try {
        file.driving.routes = d["routes"] ? d["routes"].as<int>() : file.driving.routes;
        file.driving.routeSeconds = d["route_seconds"] ? d["route_seconds"].as<double>() : file.driving.routeSeconds;
        file.driving.seed = d["seed"] ? d["seed"].as<std::int64_t>() : file.driving.seed;
    } catch (const YAML::Exception&) {
        throw InputError(at(path, d), "'driving' takes an integer 'routes' and 'seed' and a number 'route_seconds'");
    }
    if (file.driving.routes < 1 || file.driving.routeSeconds < 2 || file.driving.routeSeconds > 3600 ||
        file.driving.seed < 0)
        throw InputError(at(path, d), "'driving' needs routes >= 1, route_seconds in 2..3600 and seed >= 0");
}

VariantsTableKind readTable(const std::string& path, const YAML::Node& t)
{
    const std::string kind = t.IsScalar() ? t.Scalar() : "";
    if (kind != "speed" && kind != "loader")
        throw InputError(at(path, t), "'table' must be speed or loader, got '" + kind + "'");
    return kind == "loader" ? VariantsTableKind::Loader : VariantsTableKind::Speed;
}

// The variants in order, each name once; then every compare_to names another variant of the list.
std::vector<VariantSpec> readVariants(const std::string& path, const YAML::Node& root)
{
    const YAML::Node variants = root["variants"];
    if (!variants || !variants.IsSequence() || variants.size() == 0)
        throw InputError(at(path, root), "'variants' must be a non-empty list");
    std::vector<VariantSpec> out;
    for (const YAML::Node& v : variants) {
        if (!v.IsMap() || !v["name"])
            throw InputError(at(path, v), "each variant needs a 'name' (and 'configs' and/or 'overrides')");
        VariantSpec spec;
        spec.name = v["name"].as<std::string>();
        for (const VariantSpec& other : out)
            if (other.name == spec.name)
                throw InputError(at(path, v["name"]), "variant '" + spec.name + "' is listed twice");
        spec.configs = relativeTo(path, stringList(path, v["configs"], "configs"));
        spec.overrides = stringList(path, v["overrides"], "overrides");
        if (v["compare_to"])
            spec.compareTo = v["compare_to"].as<std::string>();
        out.push_back(std::move(spec));
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::string& other = out[i].compareTo;
        const bool known = std::any_of(out.begin(), out.end(), [&](const VariantSpec& v) { return v.name == other; });
        if (!other.empty() && (!known || other == out[i].name))
            throw InputError(at(path, variants[i]["compare_to"]), "variant '" + out[i].name + "': compare_to '" +
                                                                      other + "' is not another variant of this file");
    }
    return out;
}

} // namespace

VariantsFile readVariantsFile(const std::string& path)
{
    const YAML::Node root = loadRoot(path);
    VariantsFile file;
    file.name = root["name"] ? root["name"].as<std::string>() : fs::path(path).stem().string();
    file.base = relativeTo(path, stringList(path, root["base"], "base"));
    file.seeds = readSeeds(path, root["seeds"]);
    if (const YAML::Node q = root["quality"])
        readQuality(path, q, file);
    if (const YAML::Node d = root["driving"])
        readDriving(path, d, file);
    if (const YAML::Node t = root["table"])
        file.table = readTable(path, t);
    file.variants = readVariants(path, root);
    return file;
}

namespace {

// A YAML double-quoted scalar (a JSON string is one).
std::string quoted(const std::string& text)
{
    return nlohmann::json(text).dump();
}

std::string quotedList(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + quoted(items[i]);
    return out + "]";
}

} // namespace

std::string variantsFileYaml(const VariantsFile& file, const std::string& comment)
{
    const VariantsFile defaults;
    std::string yaml;
    if (!comment.empty())
        for (std::size_t start = 0; start <= comment.size();) {
            const std::size_t end = std::min(comment.find('\n', start), comment.size());
            yaml += "# " + comment.substr(start, end - start) + "\n";
            start = end + 1;
        }
    yaml += "name: " + quoted(file.name) + "\n";
    if (!file.base.empty())
        yaml += "base: " + quotedList(file.base) + "\n";
    if (!file.seeds.empty() && file.seeds != std::vector<std::int64_t>{0}) {
        std::string seeds;
        for (std::int64_t seed : file.seeds)
            seeds += (seeds.empty() ? "" : ", ") + std::to_string(seed);
        yaml += "seeds: [" + seeds + "]\n";
    }
    if (file.qualityMetric != defaults.qualityMetric || file.qualityLabel != defaults.qualityLabel ||
        file.qualityHigherIsBetter)
        yaml += "quality: {metric: " + quoted(file.qualityMetric) + ", label: " + quoted(file.qualityLabel) +
                ", better: " + (file.qualityHigherIsBetter ? "higher" : "lower") + "}\n";
    if (file.driving.enabled)
        yaml += "driving: {routes: " + std::to_string(file.driving.routes) +
                ", route_seconds: " + nlohmann::json(file.driving.routeSeconds).dump() +
                ", seed: " + std::to_string(file.driving.seed) + "}\n";
    if (file.table == VariantsTableKind::Loader)
        yaml += "table: loader\n";
    yaml += "variants:\n";
    for (const VariantSpec& v : file.variants) {
        yaml += "  - {name: " + quoted(v.name);
        if (!v.configs.empty())
            yaml += ", configs: " + quotedList(v.configs);
        yaml += ", overrides: " + quotedList(v.overrides);
        if (!v.compareTo.empty())
            yaml += ", compare_to: " + quoted(v.compareTo);
        yaml += "}\n";
    }
    return yaml;
}

} // namespace pitwall
