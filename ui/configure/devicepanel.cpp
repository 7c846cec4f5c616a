#include "ui/configure/devicepanel.h"

#include "core/config/workload.h"
#include "core/devices/gpubackends.h"
#include "core/search/partitionauto.h"
#include "core/util/numformat.h"
#include "core/util/process.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"
#include "ui/configure/configform.h"
#include "ui/exporting.h"
#include "ui/tasks/taskmanager.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRadioButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <functional>

namespace pitwall::ui {

namespace {

const char* const kBackendKey = "device.backend";
const char* const kModeKey = "device.partition_mode";

QString coreList(const std::vector<int>& cores)
{
    return cores.empty() ? QStringLiteral("–") : QString::fromStdString(formatCpuList(cores));
}

} // namespace

DevicePanel::DevicePanel(ConfigForm* form, QWidget* parent) : QWidget(parent), m_form(form)
{
    setObjectName("devicePanel");
    m_backends.push_back(std::shared_ptr<DeviceBackend>(makeCpuBackend()));

    m_backend = new QComboBox(this);
    m_backend->setObjectName("deviceBackend");
    if (const KeySpec* spec = form->schema().find(kBackendKey))
        for (const std::string& choice : spec->choices)
            m_backend->addItem(QString::fromStdString(choice), QString::fromStdString(choice));
    connect(m_backend, &QComboBox::activated, this,
            [this](int i) { m_form->setText(kBackendKey, m_backend->itemData(i).toString()); });

    auto* modeRow = new QVBoxLayout;
    modeRow->setSpacing(2);
    m_modes = new QButtonGroup(this);
    for (PartitionMode mode : allPartitionModes()) {
        auto* button = new QRadioButton(QString::fromLatin1(partitionModeName(mode)), this);
        button->setObjectName(QStringLiteral("mode:") + QString::fromLatin1(partitionModeName(mode)));
        m_modes->addButton(button, static_cast<int>(mode));
        modeRow->addWidget(button);
        m_modeButtons.push_back(button);
    }
    connect(m_modes, &QButtonGroup::idClicked, this, [this](int id) {
        m_form->setText(kModeKey, QString::fromLatin1(partitionModeName(static_cast<PartitionMode>(id))));
    });

    m_physical = new QLabel(this);
    m_physical->setWordWrap(true);
    m_reason = new QLabel(this);
    m_reason->setObjectName("modeReason");
    m_reason->setWordWrap(true);
    m_recommendation = new QLabel(this);
    m_recommendation->setObjectName("partitionRecommendation");
    m_recommendation->setWordWrap(true);
    m_recommendation->setTextFormat(Qt::RichText);
    connect(m_recommendation, &QLabel::linkActivated, this,
            [this](const QString& mode) { m_form->setText(kModeKey, mode); });
    m_notes = new QLabel(this);
    m_notes->setWordWrap(true);
    m_devices = new QTreeWidget(this);
    m_devices->setObjectName("logicalDevices");
    m_devices->setRootIsDecorated(false);
    m_devices->setHeaderLabels({tr("Logical device"), tr("CPU set"), tr("Threads"), tr("Memory"), tr("Environment")});
    m_devices->header()->setStretchLastSection(true);
    addCsvExportMenu(m_devices);

    auto* form_ = new QFormLayout;
    form_->addRow(tr("Backend"), m_backend);
    form_->addRow(tr("Partition mode"), modeRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form_);
    layout->addWidget(m_recommendation);
    layout->addWidget(m_physical);
    layout->addWidget(m_reason);
    layout->addWidget(m_devices, 1);
    layout->addWidget(m_notes);

    connect(form, &ConfigForm::changed, this, &DevicePanel::showBackend);
    showBackend();
    startDiscovery();
}

DevicePanel::~DevicePanel() = default;

void DevicePanel::startDiscovery()
{
    // nvidia-smi and amd-smi may take seconds: a task, whose result is adopted when it comes.
    TaskManager::instance()->start(
        {tr("Looking for GPU devices"), TaskManager::keyFor(this, QStringLiteral("gpu-discovery"))}, this,
        [](TaskContext& context) {
            context.setProgress(0, tr("running nvidia-smi and amd-smi"));
            return discoverGpuBackends();
        },
        [this](GpuDiscovery found) {
            for (auto& backend : found.backends)
                m_backends.push_back(std::shared_ptr<DeviceBackend>(std::move(backend)));
            for (const std::string& problem : found.problems)
                m_discoveryProblems << QString::fromStdString(problem);
            m_discoveryDone = true;
            showBackend();
        });
}

const DeviceBackend* DevicePanel::currentBackend() const
{
    const std::string choice = m_form->config().getString(kBackendKey);
    if (choice == "auto")
        return m_backends.size() > 1 ? m_backends[1].get() : m_backends[0].get();
    for (const auto& backend : m_backends)
        if (backend->name() == choice)
            return backend.get();
    return nullptr;
}

QString DevicePanel::unavailableReason() const
{
    return m_reason->text();
}

void DevicePanel::setMeasurements(const std::vector<BenchmarkRecord>& records)
{
    std::vector<BenchmarkRecord> partitions;
    for (const BenchmarkRecord& r : records)
        if (r.suite == "partitions")
            partitions.push_back(r);
    if (partitions.size() == m_measurements.size())
        return; // records are only ever added
    m_measurements = std::move(partitions);
    showBackend();
}

QString DevicePanel::measuredText(PartitionMode mode, const std::string& backend) const
{
    const std::string model = m_form->config().getString("experiment.model");
    const std::string name = partitionModeName(mode);
    double best = 0;
    long long bestBatch = 0;
    for (const BenchmarkRecord& r : m_measurements) {
        const Json& p = r.parameters;
        if (p.value("mode", std::string()) != name || p.value("backend", std::string()) != backend ||
            p.value("model", model) != model) // records from before the model was recorded count as this model's
            continue;
        const double fps = r.results.value("compute_fps", 0.0);
        if (fps > best) {
            best = fps;
            bestBatch = p.value("batch_size", 0LL);
        }
    }
    return best > 0 ? tr(" · measured %1 compute FPS (batch %2)")
                          .arg(QString::fromStdString(formatFixedPoint(best, 1)))
                          .arg(bestBatch)
                    : QString();
}

QString DevicePanel::showRecommendation(const DeviceBackend& backend)
{
    PartitionWorkload w{hostName(), backend.name(), workloadKey(m_form->config()), {}};
    for (const ModeAvailability& m : backend.modes())
        if (m.available)
            w.modes.push_back(partitionModeName(m.mode));
    const std::optional<StoredPartitionChoice> stored = storedPartitionChoice(m_measurements, w);
    if (!stored) {
        m_recommendation->setText(
            tr("No partition measurement of this configuration on this machine (%1) yet: run the Partition benchmark "
               "with Recommend, or search with partition auto, and the fastest mode is named here.")
                .arg(QString::fromStdString(backend.name())));
        return {};
    }
    const QString reason = QString::fromStdString(stored->choice.reason).toHtmlEscaped();
    const QString when = QString::fromStdString(formatTimestamp(stored->measuredAt).substr(0, 16)) + tr(" UTC");
    if (!stored->choice.recommended) {
        m_recommendation->setText(tr("Measured %1: %2").arg(when, reason));
        return {};
    }
    const QString mode = QString::fromStdString(*stored->choice.recommended);
    const bool chosen = m_form->config().getString(kModeKey) == stored->choice.recommended;
    m_recommendation->setText(
        tr("<b>Recommended: %1</b> (measured %2 on this machine): %3%4")
            .arg(mode, when, reason, chosen ? QString() : tr(" — <a href=\"%1\">use %1</a>").arg(mode)));
    return mode;
}

void DevicePanel::showBackend()
{
    // Whichever way this returns, the configure view learns what the panel now shows.
    const std::unique_ptr<void, std::function<void(void*)>> shown(this, [this](void*) { Q_EMIT devicesShown(); });
    const QString choice = QString::fromStdString(m_form->config().getString(kBackendKey));
    markBackendsFound();
    m_backend->setCurrentIndex(m_backend->findData(choice));

    const auto mode = parsePartitionMode(m_form->config().getString(kModeKey)).value_or(PartitionMode::SPX);
    if (QAbstractButton* button = m_modes->button(static_cast<int>(mode)))
        button->setChecked(true);

    m_devices->clear();
    const DeviceBackend* backend = currentBackend();
    if (!backend) {
        m_physical->setText(m_discoveryDone ? tr("No %1 devices on this machine.").arg(choice)
                                            : tr("Looking for %1 devices…").arg(choice));
        m_reason->setText(m_discoveryProblems.join(QLatin1Char('\n')));
        m_notes->clear();
        m_recommendation->clear();
        return;
    }
    showPhysicalDevices(*backend, choice);
    const QString reason = showModes(*backend, mode);
    const QString recommended = showRecommendation(*backend);
    if (QAbstractButton* button =
            recommended.isEmpty() ? nullptr
                                  : m_modes->button(static_cast<int>(*parsePartitionMode(recommended.toStdString()))))
        button->setText(button->text().replace(0, recommended.size(), recommended + tr(" (recommended)")));
    m_reason->setText(reason);
    m_reason->setStyleSheet(reason.isEmpty() ? QString() : QStringLiteral("color: #d04040;"));
    if (reason.isEmpty())
        showLogicalDevices(*backend, mode);
    for (int c = 0; c < 4; ++c)
        m_devices->resizeColumnToContents(c);
    QStringList notes;
    for (const std::string& note : backend->notes())
        notes << QString::fromStdString(note);
    m_notes->setText(notes.join(QLatin1Char('\n')));
}

void DevicePanel::markBackendsFound()
{
    for (int i = 0; i < m_backend->count(); ++i) {
        const QString name = m_backend->itemData(i).toString();
        bool found = name == QLatin1String("auto") || name == QLatin1String("cpu");
        for (const auto& backend : m_backends)
            found = found || QString::fromStdString(backend->name()) == name;
        m_backend->setItemText(i, found || !m_discoveryDone ? name : tr("%1 (not found)").arg(name));
    }
}

void DevicePanel::showPhysicalDevices(const DeviceBackend& backend, const QString& choice)
{
    QStringList physical;
    for (const PhysicalDevice& d : backend.physicalDevices())
        physical << tr("%1:%2 %3 — %4 core(s), %5")
                        .arg(QString::fromStdString(d.backend))
                        .arg(d.index)
                        .arg(QString::fromStdString(d.name))
                        .arg(d.cores)
                        .arg(QString::fromStdString(formatBytes(static_cast<double>(d.memoryBytes))));
    m_physical->setText(tr("Backend %1%2: %3")
                            .arg(QString::fromStdString(backend.name()),
                                 choice == QLatin1String("auto") ? tr(" (auto)") : QString(),
                                 physical.join(QLatin1String("; "))));
}

QString DevicePanel::modeText(const DeviceBackend& backend, const ModeAvailability& m) const
{
    const QString name = QString::fromLatin1(partitionModeName(m.mode));
    if (!m.available)
        return tr("%1 — unavailable: %2").arg(name, QString::fromStdString(m.why));
    QString text = tr("%1 — %2 logical device(s) per device").arg(name).arg(partitionsPerDevice(m.mode));
    try {
        const std::vector<LogicalDevice> each = backend.logicalDevices(m.mode);
        if (!each.empty())
            text += tr(", %1 core(s) and %2 each")
                        .arg(each.front().cpuSet.size())
                        .arg(QString::fromStdString(formatBytes(static_cast<double>(each.front().memoryBytes))));
    } catch (const std::exception&) {
    }
    return text + measuredText(m.mode, backend.name());
}

QString DevicePanel::showModes(const DeviceBackend& backend, PartitionMode chosen)
{
    QString reason;
    for (const ModeAvailability& m : backend.modes()) {
        QAbstractButton* button = m_modes->button(static_cast<int>(m.mode));
        if (!button)
            continue;
        button->setText(modeText(backend, m));
        button->setToolTip(m.available ? tr("%1 logical device(s) per device").arg(partitionsPerDevice(m.mode))
                                       : QString::fromStdString(m.why));
        if (m.mode == chosen && !m.available)
            reason = tr("%1 is unavailable here: %2")
                         .arg(QString::fromLatin1(partitionModeName(m.mode)), QString::fromStdString(m.why));
    }
    return reason;
}

void DevicePanel::showLogicalDevices(const DeviceBackend& backend, PartitionMode mode)
{
    try {
        for (const LogicalDevice& d : backend.logicalDevices(mode)) {
            QStringList env;
            for (const auto& [k, v] : d.environment)
                env << QString::fromStdString(k + "=" + v);
            auto* item = new QTreeWidgetItem(m_devices);
            item->setText(0, QString::fromStdString(d.id));
            item->setText(1, coreList(d.cpuSet));
            item->setText(2, QString::number(d.threads));
            item->setText(3, QString::fromStdString(formatBytes(static_cast<double>(d.memoryBytes))));
            item->setText(4, env.join(QLatin1Char(' ')));
        }
    } catch (const std::exception& e) {
        m_reason->setText(QString::fromStdString(e.what()));
    }
}

} // namespace pitwall::ui
