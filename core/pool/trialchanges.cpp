#include "core/pool/trialchanges.h"

#include "core/util/strings.h"

namespace pitwall {

std::string firstLine(const std::string& text)
{
    const auto nl = text.find('\n');
    return nl == std::string::npos ? text : text.substr(0, nl) + " ...";
}

void TrialChanges::report(const std::vector<TrialRecord>& trials, const std::function<void(const PoolEvent&)>& onEvent)
{
    for (const TrialRecord& t : trials) {
        const auto known = m_known.find(t.number);
        if (known != m_known.end() && known->second == t.state)
            continue;
        m_known[t.number] = t.state;
        if (!onEvent)
            continue;
        std::string device;
        if (const auto w = t.systemAttrs.find(kWorkerAttr); w != t.systemAttrs.end() && w->is_object())
            device = w->value("device", std::string());
        const std::string trial = "trial " + std::to_string(t.number);
        if (t.state == TrialState::Running) {
            Json params = Json::object();
            for (const TrialParam& p : t.params)
                params[p.name] = p.value();
            onEvent({PoolEventKind::TrialStarted, device, t.number,
                     trial + " started" + (device.empty() ? "" : " on " + device) + ": " + params.dump()});
        } else if (t.state == TrialState::Complete || t.state == TrialState::Pruned) {
            std::string text = trial + " " + std::string(trialStateName(t.state));
            std::vector<std::string> values;
            for (double v : t.values)
                values.push_back(formatDouble(v));
            if (!values.empty())
                text += (values.size() == 1 ? " value " : " values ") + join(values, ", ");
            if (t.state == TrialState::Pruned && !t.intermediateValues.empty())
                text += " at step " + std::to_string(t.intermediateValues.rbegin()->first);
            onEvent({PoolEventKind::TrialFinished, device, t.number, text});
        } else if (t.state == TrialState::Fail) {
            const auto reason = t.systemAttrs.find(kFailReasonAttr);
            onEvent({PoolEventKind::TrialFinished, device, t.number,
                     trial + " FAIL" +
                         (reason != t.systemAttrs.end() && reason->is_string()
                              ? ": " + firstLine(reason->get<std::string>())
                              : std::string())});
        }
    }
}

} // namespace pitwall
