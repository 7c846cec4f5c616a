#include "ui/studies/trialspage.h"
#include "ui/wording.h"

#include "ui/studies/trialsview.h"
#include "ui/study/studymath.h"

#include "core/util/timefmt.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QVBoxLayout>

namespace pitwall::ui {

TrialsPage::TrialsPage(QWidget* parent) : QWidget(parent)
{
    setObjectName("trialsPage");
    m_title = new QLabel(tr("Select a study in the side bar."), this);
    m_title->setObjectName("trialsTitle");
    m_title->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_title, &QLabel::linkActivated, this, [this] { Q_EMIT configureRequested(); });
    m_table = new TrialsView(this);
    m_details = new QPlainTextEdit(this);
    m_details->setObjectName("trialDetails");
    m_details->setReadOnly(true);
    m_details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_details->setPlaceholderText(tr("Select a trial to see its parameters, runs, failure reason and latest events."));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(splitter, 1);

    connect(m_table, &TrialsView::trialSelected, this, [this](int number) {
        if (const TrialRecord* t = trialByNumber(number)) {
            m_detailsTrial = t->id;
            Q_EMIT detailsRequested(t->id);
        }
    });
    connect(m_table, &TrialsView::trialActivated, this, [this](int number) {
        const TrialRecord* t = trialByNumber(number);
        qint64 latest = 0;
        for (const RunRecord& r : *m_runs)
            if (t && r.trialId == t->id)
                latest = std::max<qint64>(latest, r.id);
        if (latest)
            Q_EMIT openRun(latest);
    });
}

const TrialRecord* TrialsPage::trialByNumber(int number) const
{
    for (const TrialRecord& t : *m_records)
        if (t.number == number)
            return &t;
    return nullptr;
}

void TrialsPage::showSnapshot(const StoreSnapshot& snapshot)
{
    if (snapshot.studies.empty()) {
        // A new database: say where studies come from, not "select one".
        m_title->setText(tr("No study in this database yet. <a href=\"configure\">Configure</a> a training or a "
                            "search and press Start; its study appears in the side bar."));
        return;
    }
    if (snapshot.focusStudy.isEmpty())
        return;
    if (snapshot.focusStudy == m_shownStudy && snapshot.focusTrials == m_records) {
        m_runs = snapshot.runs;
        return; // the poller hands the same vector while the trials are unchanged (core/store/trialcache.h)
    }
    const std::uint64_t signature = trialsSignature(*snapshot.focusTrials);
    if (snapshot.focusStudy == m_shownStudy && signature == m_signature) {
        m_runs = snapshot.runs;
        m_records = snapshot.focusTrials; // attribute values may be newer: the details read them
        return; // nothing the table shows changed
    }
    m_signature = signature;
    m_study = snapshot.focusStudy;
    m_valueName.clear();
    for (const StudySummary& s : snapshot.studies)
        if (QString::fromStdString(s.study.name) == m_study) {
            // The first objective's name ("val/loss"; "loss, 1 of 2" with several); none for an unnamed one.
            const std::vector<std::string> names = objectiveNames(s.study);
            const QString first = QString::fromStdString(names.front());
            if (names.size() > 1)
                m_valueName = tr("%1, 1 of %2").arg(first).arg(names.size());
            else if (first != QLatin1String("objective"))
                m_valueName = first;
        }
    m_records = snapshot.focusTrials;
    m_runs = snapshot.runs;
    m_dirty = true;
    showTitle();
    if (isVisible())
        fill();
}

void TrialsPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        fill();
}

void TrialsPage::fill()
{
    m_dirty = false;
    if (m_shownStudy != m_study)
        m_details->clear();
    m_shownStudy = m_study;
    m_table->showTrials(m_records, m_valueName);
}

void TrialsPage::showTitle()
{
    // Failures and interrupted trials apart, as the side bar, the job and `study list` count them.
    int failed = 0, interrupted = 0;
    for (const TrialRecord& t : *m_records) {
        if (t.state != TrialState::Fail)
            continue;
        const auto mark = t.systemAttrs.find(kInterruptedAttr);
        (mark != t.systemAttrs.end() && mark->is_boolean() && mark->get<bool>() ? interrupted : failed) += 1;
    }
    m_title->setText(tr("<b>%1</b> — %2%3%4")
                         .arg(m_study.toHtmlEscaped())
                         .arg(counted(static_cast<qint64>(m_records->size()), "trial", "trials"))
                         .arg(failed ? tr(", <span style=\"color:#d04040\">%1 failed</span>").arg(failed) : QString())
                         .arg(interrupted ? tr(", %1 interrupted").arg(interrupted) : QString()));
}

void TrialsPage::showDetails(const TrialDetails& details)
{
    if (details.trialId != m_detailsTrial)
        return;
    const TrialRecord* trial = nullptr;
    for (const TrialRecord& t : *m_records)
        if (t.id == details.trialId)
            trial = &t;
    if (!trial)
        return;
    QStringList lines;
    lines << tr("Trial #%1  %2").arg(trial->number).arg(QString::fromUtf8(trialStateName(trial->state).data()));
    if (!trial->values.empty())
        lines << tr("value: %1").arg(trial->values[0], 0, 'g', 8);
    if (trial->systemAttrs.contains("fail_reason")) {
        const Json& reason = trial->systemAttrs["fail_reason"];
        lines << tr("FAILED: %1")
                     .arg(QString::fromStdString(reason.is_string() ? reason.get<std::string>() : reason.dump()));
    }
    for (const TrialParam& p : trial->params)
        lines << QStringLiteral("  %1 = %2")
                     .arg(QString::fromStdString(p.name), QString::fromStdString(p.value().dump()));
    for (const auto& [key, value] : trial->userAttrs.items())
        if (key != "config_changes")
            lines << QStringLiteral("  %1: %2").arg(QString::fromStdString(key), QString::fromStdString(value.dump()));
    for (const RunRecord& r : details.runs) {
        QString line =
            tr("run %1: seed %2 on %3, %4")
                .arg(r.id)
                .arg(r.seed)
                .arg(QString::fromStdString(r.logicalDevice), QString::fromUtf8(runStatusName(r.status).data()));
        if (r.exitCode)
            line += tr(", exit %1").arg(*r.exitCode);
        if (!r.message.empty())
            line += QStringLiteral(" — ") + QString::fromStdString(r.message);
        lines << line;
    }
    if (!details.eventsTail.empty()) {
        lines << tr("Latest events:");
        for (const EventRecord& e : details.eventsTail)
            lines << QStringLiteral("  %1 [%2] %3")
                         .arg(QString::fromStdString(formatTimestamp(e.time)).mid(11, 8),
                              QString::fromUtf8(eventLevelName(e.level).data()), QString::fromStdString(e.message));
    }
    m_details->setPlainText(lines.join(QLatin1Char('\n')));
}

} // namespace pitwall::ui
