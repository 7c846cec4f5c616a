#pragma once
// The device panel of the configure view: the compute backend (device.backend), the partition mode
// (device.partition_mode, SPX/DPX/QPX/CPX) with the logical devices the mode yields on this machine, and why
// a mode is unavailable, and which mode a measurement recommends. The CPU backend is read at once; GPU backends are discovered by a task (nvidia-smi /
// amd-smi may take seconds, off the GUI thread) and appear when found. GUI thread only.

#include "core/devices/devices.h"
#include "core/store/records.h"

#include <QWidget>

#include <memory>
#include <vector>

class QButtonGroup;
class QComboBox;
class QLabel;
class QRadioButton;
class QTreeWidget;

namespace pitwall::ui {

class ConfigForm;

class DevicePanel : public QWidget {
    Q_OBJECT
public:
    explicit DevicePanel(ConfigForm* form, QWidget* parent = nullptr);
    ~DevicePanel() override;

    QTreeWidget* logicalDevices() const { return m_devices; }
    QString unavailableReason() const;
    // True once GPU discovery has finished (whether or not it found anything).
    bool discoveryDone() const { return m_discoveryDone; }
    // Partition benchmarks of the database (suite "partitions"): each mode then shows the best compute FPS
    // measured for the form's model on the chosen backend.
    void setMeasurements(const std::vector<BenchmarkRecord>& records);

Q_SIGNALS:
    // The panel shows a (new) backend, mode or list of logical devices.
    void devicesShown();

private:
    void startDiscovery();
    void showBackend();
    // The backends' names, "(not found)" after discovery for one this machine lacks.
    void markBackendsFound();
    void showPhysicalDevices(const DeviceBackend& backend, const QString& choice);
    // Each mode's button says what it gives (or why it is unavailable); returns why `chosen` is unavailable, "" when
    // it is available.
    QString showModes(const DeviceBackend& backend, PartitionMode chosen);
    QString modeText(const DeviceBackend& backend, const ModeAvailability& mode) const;
    // The logical devices `mode` yields, in the table (a failure goes to the reason).
    void showLogicalDevices(const DeviceBackend& backend, PartitionMode mode);
    // " · measured 412.0 compute FPS (batch 32)" for the form's model, or "" when nothing was measured.
    QString measuredText(PartitionMode mode, const std::string& backend) const;
    // The mode a stored measurement of the form's workload on this machine recommends (core/search/partitionauto.h),
    // shown under the modes with a link that chooses it; returns it ("" when none).
    QString showRecommendation(const DeviceBackend& backend);
    const DeviceBackend* currentBackend() const;

    ConfigForm* m_form;
    std::vector<std::shared_ptr<DeviceBackend>> m_backends; // cpu first, then GPU backends found
    QStringList m_discoveryProblems;
    bool m_discoveryDone = false;
    QComboBox* m_backend = nullptr;
    QButtonGroup* m_modes = nullptr;
    std::vector<QRadioButton*> m_modeButtons;
    QLabel* m_physical = nullptr;
    QLabel* m_reason = nullptr;
    QLabel* m_recommendation = nullptr;
    QLabel* m_notes = nullptr;
    QTreeWidget* m_devices = nullptr;
    std::vector<BenchmarkRecord> m_measurements;
};

} // namespace pitwall::ui
