#include "ui/start/startpage.h"

#include "ui/theme.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace pitwall::ui {

StartPage::StartPage(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("startPage"));
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    auto* column = new QVBoxLayout;
    auto* icon = new QLabel(this);
    icon->setPixmap(applicationIcon().pixmap(64, 64));
    auto* title = new QLabel(tr("<h1>Pitwall</h1>"), this);
    auto* heading = new QHBoxLayout;
    heading->addWidget(icon);
    heading->addWidget(title, 1);
    column->addLayout(heading);
    auto* what = new QLabel(tr("Train driving-perception models, search their hyperparameters one trial per logical "
                               "device, and compare what you found. Everything goes into a results database: start "
                               "a new one, open one, or watch the demo train four speed variants."),
                            this);
    what->setWordWrap(true);
    column->addWidget(what);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("startMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    column->addWidget(m_message);

    auto* buttons = new QHBoxLayout;
    const auto button = [this, buttons](const QString& text, const char* name, const char* icon) {
        auto* b = new QPushButton(text, this);
        b->setObjectName(QLatin1String(name));
        if (icon)
            b->setIcon(actionIcon(icon));
        buttons->addWidget(b);
        return b;
    };
    QPushButton* fresh = button(tr("&New database…"), "startNew", "new");
    QPushButton* open = button(tr("&Open database…"), "startOpen", "open");
    QPushButton* demo = button(tr("Run the &demo"), "startDemo", "start");
    demo->setToolTip(tr("Makes a demo database and trains four of LEAD's TransFuser speed variants on a synthetic "
                        "driving world in it (about a minute on 2 cores); the Live view follows the training."));
    buttons->addStretch(1);
    column->addLayout(buttons);
    connect(fresh, &QPushButton::clicked, this, &StartPage::newRequested);
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(demo, &QPushButton::clicked, this, &StartPage::demoRequested);

    m_recentTitle = new QLabel(tr("<b>Recent databases</b>"), this);
    column->addWidget(m_recentTitle);
    m_recent = new QListWidget(this);
    m_recent->setObjectName(QStringLiteral("startRecent"));
    m_recent->setMaximumHeight(180);
    column->addWidget(m_recent);
    connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (item->flags() & Qt::ItemIsEnabled)
            Q_EMIT recentChosen(item->data(Qt::UserRole).toString());
    });
    connect(m_recent, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (item->flags() & Qt::ItemIsEnabled)
            Q_EMIT recentChosen(item->data(Qt::UserRole).toString());
    });

    auto* centred = new QHBoxLayout;
    centred->addStretch(1);
    auto* box = new QWidget(this);
    box->setLayout(column);
    box->setMaximumWidth(640);
    centred->addWidget(box, 4);
    centred->addStretch(1);
    outer->addLayout(centred);
    outer->addStretch(2);
}

void StartPage::setRecent(const QStringList& files)
{
    m_recent->clear();
    for (const QString& file : files) {
        const bool exists = QFileInfo::exists(file);
        auto* item = new QListWidgetItem(exists ? file : tr("%1 (missing)").arg(file), m_recent);
        item->setData(Qt::UserRole, file);
        item->setIcon(exists ? actionIcon("open") : QIcon());
        if (!exists)
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    m_recentTitle->setVisible(!files.isEmpty());
    m_recent->setVisible(!files.isEmpty());
}

void StartPage::setMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
    QPalette p = m_message->palette();
    p.setColor(QPalette::WindowText, error ? stateColor("FAIL", palette()) : palette().color(QPalette::WindowText));
    m_message->setPalette(p);
}

QString StartPage::message() const
{
    return m_message->text();
}

} // namespace pitwall::ui
