#include "ui/configure/internal/runpages.h"

#include "core/jobs/trainjob.h"

#include <QLabel>

namespace pitwall::ui {

TrainPage::TrainPage(QWidget* parent)
    : RunPage({RunKind::Train, tr("Training run"), TrainJob::kCommand, TrainJob::fields(), RunKindInfo::CliCheck::No},
              parent)
{
    setObjectName("trainPage");
    auto* note = new QLabel(tr("Trains every seed of experiment.seeds through the enabled stages of the form's "
                               "config; the run is followed in the Live view."),
                            this);
    note->setWordWrap(true);
    addRow({}, note);
}

std::vector<std::string> TrainPage::words(const RunContext& context) const
{
    TrainJob job;
    job.configs = {absolutePath(context.configFile)};
    job.database = absolutePath(context.database);
    return job.toArgs();
}

void TrainPage::setFromWords(const std::vector<std::string>& words, QStringList& configFiles, QStringList& overrides)
{
    const TrainJob job = TrainJob::fromArgs(words);
    configFiles << toQt(job.configs);
    overrides << toQt(job.overrides);
}

} // namespace pitwall::ui
