#include "ui/configure/internal/runpages.h"

#include "core/jobs/evaljob.h"
#include "ui/configure/internal/runpicker.h"

#include <QLineEdit>
#include <QSpinBox>

namespace pitwall::ui {

namespace {

bool isBuiltInPolicy(const QString& policy)
{
    return policy == QLatin1String("expert") || policy == QLatin1String("idle");
}

} // namespace

DrivingPage::DrivingPage(QWidget* parent)
    : RunPage({RunKind::Driving, tr("Closed-loop driving evaluation"), DrivingEvalJob::kCommand,
               DrivingEvalJob::fields(), RunKindInfo::CliCheck::Yes},
              parent)
{
    setObjectName("drivingPage");
    m_policy = lineEdit(this, "drivingPolicy", tr("run id(s), expert or idle"));
    addField(tr("Policy"), m_policy,
             tr("A run id (its last checkpoint drives), several ids separated by commas (one per training seed), "
                "'expert' or 'idle'"),
             {"policy"});
    // The database's runs to pick from; picking fills the policy field, which stays typeable.
    m_runPicker = new RunPicker(this);
    addRow(tr("Runs"), m_runPicker);
    connect(m_runPicker, &RunPicker::runsPicked, this, [this](const QList<qint64>& ids) {
        QStringList words;
        for (qint64 id : ids)
            words << QString::number(id);
        m_policy->setText(words.join(QLatin1Char(',')));
    });
    m_routes = spinBox(this, "drivingRoutes", 1, 1000, 20); // pitwall eval driving's default
    addField(tr("Routes"), m_routes, tr("Synthetic routes to drive"), {"routes"});
    m_seed = spinBox(this, "drivingSeed", 0, 1000000, 0);
    addField(tr("Seed"), m_seed, tr("The same seed gives the same routes and results"), {"seed"});
}

std::vector<std::string> DrivingPage::words(const RunContext& context) const
{
    DrivingEvalJob job;
    job.policies = parsePolicyList(m_policy->text().remove(QLatin1Char(' ')).toStdString());
    job.routes = m_routes->value();
    job.seed = m_seed->value();
    job.database = absolutePath(context.database);
    return job.toArgs();
}

void DrivingPage::setFromWords(const std::vector<std::string>& words, QStringList&, QStringList&)
{
    const DrivingEvalJob job = DrivingEvalJob::fromArgs(words);
    m_policy->setText(toQt(job.policies).join(QLatin1Char(',')));
    m_routes->setValue(job.routes.value_or(m_routes->value()));
    m_seed->setValue(static_cast<int>(job.seed.value_or(m_seed->value())));
}

void DrivingPage::selected()
{
    m_runPicker->refresh(); // runs trained since
}

QString DrivingPage::unknownRuns(const QString& policy) const
{
    if (!m_runPicker->loaded() || isBuiltInPolicy(policy))
        return {};
    QStringList unknown;
    for (int id : positiveList(policy))
        if (!m_runPicker->hasRun(id))
            unknown << QString::number(id);
    return unknown.join(QStringLiteral(", "));
}

void DrivingPage::checkFields(const RunCheckContext&)
{
    const QString policy = m_policy->text().trimmed();
    if (policy.isEmpty())
        fail(m_policy, tr("give a run id (see the Studies view), expert or idle"));
    else if (!isBuiltInPolicy(policy) && positiveList(policy).empty())
        fail(m_policy, tr("'%1' is not a run id list (e.g. 12 or 12,13,14), expert or idle").arg(policy));
    else if (const QString unknown = unknownRuns(policy); !unknown.isEmpty())
        fail(m_policy, tr("no run %1 in this database (pick one from the list below)").arg(unknown));
}

} // namespace pitwall::ui
