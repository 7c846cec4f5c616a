// CompareView's databases: the studies and runs of each database (the window's and the ones added to the
// comparison), their labels, and adding one (read-only, through the poller) or being told why it was refused.
#include "ui/compare/compareview.h"
#include "ui/locations.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>

#include <algorithm>
#include <unordered_set>

namespace pitwall::ui {

CompareView::Source CompareView::sourceOf(const QString& database, const StoreSnapshot& snapshot)
{
    Source source;
    source.database = database;
    source.error = snapshot.error;
    source.trials = snapshot.studyTrials;
    if (!snapshot.focusStudy.isEmpty())
        source.trials.emplace(snapshot.focusStudy, snapshot.focusTrials); // a snapshot with the focus study only
    for (const StudySummary& summary : snapshot.studies) {
        source.studyOrder << QString::fromStdString(summary.study.name);
        source.directions[QString::fromStdString(summary.study.name)] = summary.study.directions;
    }
    for (const auto& entry : source.trials)
        if (!source.studyOrder.contains(entry.first))
            source.studyOrder << entry.first;
    if (snapshot.runs->empty())
        return source; // no run to find trials of (indexing 100,000 trials took about 30 ms per snapshot)
    std::unordered_set<std::int64_t> ids;
    for (const auto& entry : source.trials)
        for (const TrialRecord& t : *entry.second)
            ids.insert(t.id);
    for (const RunRecord& r : *snapshot.runs)
        if (r.trialId && ids.count(*r.trialId))
            source.lastRunOfTrial[*r.trialId] = std::max(source.lastRunOfTrial[*r.trialId], r.id);
    return source;
}

const CompareView::Source* CompareView::source(const QString& database) const
{
    for (const Source& s : m_sources)
        if (s.database == database)
            return &s;
    return nullptr;
}

QString CompareView::databaseLabel(const QString& database) const
{
    const QString location = database.isEmpty() ? m_location : database;
    if (isServerLocation(location))
        return locationName(location);
    QStringList others{m_location};
    for (const Source& s : m_sources)
        if (!s.database.isEmpty())
            others << s.database;
    others.removeAll(location);
    const QFileInfo info(location);
    const auto unique = [&](auto name) {
        return std::none_of(others.begin(), others.end(),
                            [&](const QString& o) { return name(QFileInfo(o)) == name(info); });
    };
    const auto fileName = [](const QFileInfo& f) { return f.fileName(); };
    const auto withFolder = [](const QFileInfo& f) { return f.dir().dirName() + QLatin1Char('/') + f.fileName(); };
    if (unique(fileName))
        return fileName(info);
    return unique(withFolder) ? withFolder(info) : location;
}

QStringList CompareView::databases() const
{
    QStringList out;
    for (const Source& s : m_sources)
        if (!s.database.isEmpty())
            out << s.database;
    return out;
}

void CompareView::showDatabases(const QList<StoreSnapshot>& databases)
{
    m_sources.resize(1);
    for (const StoreSnapshot& database : databases) {
        m_sources.push_back(sourceOf(database.location, database));
        m_adding.removeAll(database.location);
    }
    dropVanished();
    refillPicker();
    request();
}

void CompareView::addDatabase(const QString& location)
{
    const QString path = normalLocation(location);
    m_adding << path;
    const QString shown = isServerLocation(path) ? shownLocation(path) : QDir::toNativeSeparators(path);
    m_hint->setText(tr("Opening %1…").arg(shown));
    Q_EMIT databaseAddRequested(path);
}

void CompareView::chooseDatabase()
{
    const QString path =
        m_chooser ? m_chooser()
                  : QFileDialog::getOpenFileName(this, tr("Add a results database to the comparison"), QString(),
                                                 tr("Results databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    if (!path.isEmpty())
        addDatabase(path);
}

void CompareView::showDatabaseError(const QString& location, const QString& error)
{
    m_adding.removeAll(location);
    m_hint->setText(tr("Not added: %1").arg(error));
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Add database"),
                                tr("%1 was not added to the comparison.").arg(locationName(location)),
                                QMessageBox::Ok, this);
    box->setObjectName("compareDatabaseError");
    box->setInformativeText(error + tr("\n\nNothing was written to it."));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace pitwall::ui
