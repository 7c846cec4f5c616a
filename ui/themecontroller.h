#pragma once
// The window's light or dark palette, following the desktop unless the user chose one. The choice (View > Theme:
// System, Light, Dark) is kept in the settings ("theme"); pitwall-gui --theme overrides it for one run. With System,
// the desktop's preference comes from the XDG desktop portal (org.freedesktop.portal.Settings, the
// org.freedesktop.appearance color-scheme key that GNOME and KDE set), read without blocking at start and followed
// while the window is open (its SettingChanged signal); without a portal, from the platform theme's palette as it
// was at start. The palette is set on the application, so every widget gets QEvent::PaletteChange and the charts
// re-colour (ui/theme.h).

#include "ui/theme.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QObject>

#include <optional>

namespace pitwall::ui {

class ThemeController : public QObject {
    Q_OBJECT
public:
    // Reads the portal over `bus` (the session bus in the window; tests give their own).
    explicit ThemeController(const QDBusConnection& bus, QObject* parent = nullptr);

    // The application's controller, made on first use over the session bus (parent: the application).
    static ThemeController* instance();

    // Applies `choice` (or, when empty, the saved one, else System) and starts listening to the desktop.
    void start(std::optional<ThemeChoice> choice = std::nullopt);
    // Applies `choice`; with `save`, keeps it in the settings for the next start.
    void setChoice(ThemeChoice choice, bool save = true);

    ThemeChoice choice() const { return m_choice; }
    ColorScheme scheme() const { return m_scheme; }
    // The desktop's stated preference, once the portal answered (none before, or without a portal).
    std::optional<ColorScheme> desktopPreference() const { return m_desktop; }

    // The settings key of the saved choice.
    static constexpr const char* kSettingsKey = "theme";

Q_SIGNALS:
    void schemeChanged(pitwall::ui::ColorScheme scheme);
    void choiceChanged(pitwall::ui::ThemeChoice choice);

public Q_SLOTS:
    // The portal's SettingChanged(group, key, value) signal, as the message itself (connected by name over D-Bus).
    void portalSettingChanged(const QDBusMessage& message);

private:
    void apply();
    void readPortal();

    QDBusConnection m_bus;
    QPalette m_platform; // the application's palette before Pitwall set its own
    ThemeChoice m_choice = ThemeChoice::System;
    ColorScheme m_scheme = ColorScheme::Light;
    std::optional<ColorScheme> m_desktop;
    bool m_started = false;
    bool m_applied = false;
};

} // namespace pitwall::ui
