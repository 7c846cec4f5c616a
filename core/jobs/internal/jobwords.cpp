#include "core/jobs/internal/jobwords.h"

#include "core/util/error.h"
#include "core/util/strings.h"

#include <algorithm>

namespace pitwall::jobs {

cmdline::Args parseJobWords(const std::string& path, std::vector<cmdline::OptionSpec> options,
                            const std::vector<std::string>& words)
{
    const std::vector<std::string> command = commandWords(path);
    if (words.size() < command.size() || !std::equal(command.begin(), command.end(), words.begin()))
        throw InputError("not a 'pitwall " + path + "' command line: " + join(words, " "));
    for (const cmdline::OptionSpec& common :
         std::vector<cmdline::OptionSpec>{{"db", "FILE", ""}, {"json", "", ""}, {"detach", "", ""}, {"check", "", ""}})
        if (std::none_of(options.begin(), options.end(),
                         [&](const cmdline::OptionSpec& o) { return o.name == common.name; }))
            options.push_back(common);
    return cmdline::parseArgs(options,
                              std::vector<std::string>(words.begin() + static_cast<long>(command.size()), words.end()));
}

JobFields jobFieldsOf(const std::vector<cmdline::OptionSpec>& options, const std::string& positionalField,
                      const std::string& fallbackField)
{
    JobFields fields{{}, positionalField, fallbackField};
    if (!positionalField.empty())
        fields.fields.push_back({positionalField, ""});
    for (const cmdline::OptionSpec& o : options) {
        std::string field = o.name == "config" ? "configs" : o.name;
        std::replace(field.begin(), field.end(), '-', '_');
        fields.fields.push_back({field, "--" + o.name});
    }
    return fields;
}

std::optional<int> countOption(const cmdline::Args& args, const std::string& name, int minimum)
{
    const auto value = args.integer(name, minimum);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::vector<std::string> commandWords(const std::string& path)
{
    return split(path, ' ');
}

void addOption(std::vector<std::string>& words, const std::string& name, const std::string& value)
{
    words.push_back("--" + name);
    words.push_back(value);
}

void addOption(std::vector<std::string>& words, const std::string& name, const std::optional<std::string>& value)
{
    if (value)
        addOption(words, name, *value);
}

void addOption(std::vector<std::string>& words, const std::string& name, const std::optional<int>& value)
{
    if (value)
        addOption(words, name, std::to_string(*value));
}

void addOption(std::vector<std::string>& words, const std::string& name, const std::optional<double>& value)
{
    if (value)
        addOption(words, name, formatDouble(*value));
}

void addFlag(std::vector<std::string>& words, const std::string& name, bool on)
{
    if (on)
        words.push_back("--" + name);
}

} // namespace pitwall::jobs
