#include "core/jobs/jobproblems.h"

#include <algorithm>
#include <filesystem>

namespace pitwall {

namespace {

namespace fs = std::filesystem;

// The same file or folder, however it was written (relative, trailing slash, "..").
bool samePath(const std::string& a, const std::string& b)
{
    if (a.empty() || b.empty())
        return false;
    std::error_code error;
    const fs::path left = fs::weakly_canonical(fs::absolute(a), error);
    const fs::path right = fs::weakly_canonical(fs::absolute(b), error);
    return left == right || fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
}

const JobField* fieldOfOption(const JobFields& fields, const std::string& option)
{
    const auto it = std::find_if(fields.fields.begin(), fields.fields.end(),
                                 [&](const JobField& f) { return !option.empty() && f.option == option; });
    return it == fields.fields.end() ? nullptr : &*it;
}

const JobField* fieldNamed(const JobFields& fields, const std::string& name)
{
    const auto it = std::find_if(fields.fields.begin(), fields.fields.end(),
                                 [&](const JobField& f) { return !name.empty() && f.field == name; });
    return it == fields.fields.end() ? nullptr : &*it;
}

const JobField* fieldOfFile(const JobFields& fields, const cmdline::Args& args, const std::string& file)
{
    for (const JobField& f : fields.fields) {
        const std::vector<std::string>& values =
            f.option.empty() ? (f.field == fields.positionalField ? args.positionals : std::vector<std::string>{})
                             : args.values(f.option.substr(2));
        if (std::any_of(values.begin(), values.end(), [&](const std::string& v) { return samePath(v, file); }))
            return &f;
    }
    return nullptr;
}

} // namespace

std::vector<JobProblem> jobProblems(const InputError& error, const JobFields& fields, const cmdline::Args& args)
{
    std::vector<JobProblem> out;
    for (const Diagnostic& d : error.diagnostics()) {
        const JobField* field = fieldOfOption(fields, d.option);
        if (!field && d.where.known())
            field = fieldOfFile(fields, args, d.where.file);
        if (!field && d.option.empty())
            field = fieldNamed(fields, fields.fallbackField);
        out.push_back(field ? JobProblem{field->field, field->option, d.toString()}
                            : JobProblem{{}, d.option, d.toString()});
    }
    return out;
}

nlohmann::json jobProblemsJson(const std::vector<JobProblem>& problems)
{
    nlohmann::json list = nlohmann::json::array();
    for (const JobProblem& p : problems)
        list.push_back({{"field", p.field}, {"option", p.option}, {"message", p.message}});
    return {{"ok", false}, {"problems", list}};
}

std::vector<JobProblem> jobProblemsFromJson(const nlohmann::json& document)
{
    std::vector<JobProblem> out;
    if (!document.is_object() || !document.contains("problems") || !document["problems"].is_array())
        return out;
    for (const nlohmann::json& p : document["problems"])
        if (p.is_object())
            out.push_back(
                {p.value("field", std::string()), p.value("option", std::string()), p.value("message", std::string())});
    return out;
}

std::vector<std::string> checkWords(std::vector<std::string> words)
{
    words.push_back("--check");
    words.push_back("--json");
    return words;
}

std::vector<std::string> detachedWords(std::vector<std::string> words)
{
    words.push_back("--detach");
    return words;
}

} // namespace pitwall
