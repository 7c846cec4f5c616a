#include "core/pool/hposettings.h"

#include "core/util/error.h"

#include <cmath>

namespace pitwall {

namespace {

// A field of seconds: absent or null gives nullopt; anything but a finite number > 0 is an InputError.
std::optional<double> positiveSeconds(const Json& j, const char* key)
{
    if (!j.contains(key) || j[key].is_null())
        return std::nullopt;
    const Json& value = j[key];
    if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>()))
        throw InputError("the study's " + std::string(kHpoSettingsAttr) + " " + key +
                         " is not a positive number: " + value.dump());
    return value.get<double>();
}

} // namespace

Json HpoSettings::toJson() const
{
    Json j{{"target_trials", targetTrials},
           {"space", spacePath},
           {"configs", configs},
           {"overrides", overrides},
           {"command", command},
           {"objective", objective},
           {"objectives", objectives},
           {"constraints", constraints},
           {"backend", backend},
           {"partition", partition},
           {"model", model},
           {"log_dir", logDir},
           {"term_grace_seconds", termGraceSeconds}};
    j["epochs"] = epochs ? Json(*epochs) : Json(nullptr);
    j["trial_timeout_seconds"] = trialTimeoutSeconds ? Json(*trialTimeoutSeconds) : Json(nullptr);
    return j;
}

HpoSettings HpoSettings::fromJson(const Json& j)
{
    if (!j.is_object())
        throw InputError("the study's " + std::string(kHpoSettingsAttr) + " attribute is not an object: " + j.dump());
    try {
        HpoSettings s;
        s.targetTrials = j.value("target_trials", 0);
        s.spacePath = j.value("space", std::string());
        s.configs = j.value("configs", std::vector<std::string>{});
        s.overrides = j.value("overrides", std::vector<std::string>{});
        s.command = j.value("command", std::string());
        if (j.contains("epochs") && !j["epochs"].is_null())
            s.epochs = j["epochs"].get<int>();
        s.objective = j.value("objective", std::string());
        s.objectives = j.value("objectives", std::vector<std::string>{});
        s.constraints = j.value("constraints", std::vector<std::string>{});
        s.backend = j.value("backend", std::string("cpu"));
        s.partition = j.value("partition", std::string("SPX"));
        s.model = j.value("model", std::string());
        s.logDir = j.value("log_dir", std::string());
        s.termGraceSeconds = positiveSeconds(j, "term_grace_seconds").value_or(10.0);
        s.trialTimeoutSeconds = positiveSeconds(j, "trial_timeout_seconds");
        return s;
    } catch (const Json::exception& e) {
        throw InputError("the study's " + std::string(kHpoSettingsAttr) + " attribute is malformed: " + e.what());
    }
}

std::optional<HpoSettings> readHpoSettings(const StudyRecord& study)
{
    const auto it = study.systemAttrs.find(kHpoSettingsAttr);
    if (it == study.systemAttrs.end())
        return std::nullopt;
    return HpoSettings::fromJson(*it);
}

void writeHpoSettings(Store& store, std::int64_t studyId, const HpoSettings& settings)
{
    store.setStudySystemAttr(studyId, kHpoSettingsAttr, settings.toJson());
}

int studyTarget(Store& store, const std::string& studyName)
{
    const auto study = store.findStudy(studyName);
    if (!study)
        return 0;
    const auto settings = readHpoSettings(*study);
    return settings ? settings->targetTrials : 0;
}

} // namespace pitwall
