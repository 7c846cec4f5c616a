#include "ui/configure/configform.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/util/strings.h"

#include <climits>
#include <cmath>
#include <limits>
#include <map>

namespace pitwall::ui {

namespace {

const ValueOrigin kFormOrigin{OriginKind::Program, {}, "form"};

class FloatSpinBox : public QDoubleSpinBox {
public:
    explicit FloatSpinBox(QWidget* parent) : QDoubleSpinBox(parent)
    {
        setDecimals(323); // no rounding: the value is what was typed
        setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
        setRange(std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
    }
    QString textFromValue(double value) const override { return QString::number(value, 'g', 12); }
    double valueFromText(const QString& text) const override { return QLocale::c().toDouble(text.trimmed()); }
    QValidator::State validate(QString& text, int& pos) const override
    {
        Q_UNUSED(pos);
        const QString t = text.trimmed();
        bool ok = false;
        const double v = QLocale::c().toDouble(t, &ok);
        if (!ok) {
            static const QRegularExpression partial(QStringLiteral("^[+-]?(\\d+\\.?\\d*|\\.\\d*)?([eE][+-]?\\d*)?$"));
            return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
        }
        return v < minimum() || v > maximum() ? QValidator::Intermediate : QValidator::Acceptable;
    }
    void fixup(QString& text) const override { text = textFromValue(value()); }
    // The base class measures the widest value at 323 decimals; 14 characters are enough.
    QSize sizeHint() const override { return sized(QDoubleSpinBox::sizeHint()); }
    QSize minimumSizeHint() const override { return sized(QDoubleSpinBox::minimumSizeHint()); }

private:
    QSize sized(QSize hint) const
    {
        hint.setWidth(fontMetrics().horizontalAdvance(QStringLiteral("-0.000123456789")) + 40);
        return hint;
    }
};

QString tooltipOf(const KeySpec& spec)
{
    QString tip =
        QStringLiteral("<b>%1</b><br>%2<br><i>%3; default %4</i>")
            .arg(QString::fromStdString(spec.key).toHtmlEscaped(), QString::fromStdString(spec.doc).toHtmlEscaped(),
                 QString::fromStdString(spec.expectation()).toHtmlEscaped(),
                 QString::fromStdString(spec.defaultValue.toText()).toHtmlEscaped());
    if (spec.speed)
        tip += QObject::tr("<br>Speed option.");
    if (spec.owner != "core")
        tip += QObject::tr("<br>From plugin %1.").arg(QString::fromStdString(spec.owner));
    return tip;
}

QString withoutKeyPrefix(const std::string& message, const std::string& key)
{
    const std::string prefix = "'" + key + "': ";
    return QString::fromStdString(message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message);
}

} // namespace

QDoubleSpinBox* createFloatSpinBox(QWidget* parent)
{
    return new FloatSpinBox(parent);
}

ConfigForm::ConfigForm(const Schema& schema, QWidget* parent) : QWidget(parent), m_schema(schema), m_config(schema)
{
    setObjectName("configForm");
    buildGroups();
}

void ConfigForm::buildGroups()
{
    // A row's label is its key without the dotted prefix that every key of its group shares
    // ("pretrain.epochs" and "posttrain.epochs" in Training / Stages, not "epochs" twice).
    std::map<std::string, std::vector<std::string>> prefixes; // group -> shared segments
    for (const KeySpec& spec : m_schema.keys()) {
        std::vector<std::string> segments = split(spec.key, '.');
        segments.pop_back();
        auto [it, inserted] = prefixes.try_emplace(spec.group, segments);
        if (!inserted) {
            std::size_t shared = 0;
            while (shared < it->second.size() && shared < segments.size() && it->second[shared] == segments[shared])
                ++shared;
            it->second.resize(shared);
        }
    }
    auto labelOf = [&](const KeySpec& spec) {
        const std::size_t skip = prefixes[spec.group].size();
        const std::vector<std::string> segments = split(spec.key, '.');
        return QString::fromStdString(
            join(std::vector<std::string>(segments.begin() + static_cast<long>(skip), segments.end()), "."));
    };

    auto* layout = new QVBoxLayout(this);
    std::map<QString, QFormLayout*> forms;
    for (const KeySpec& spec : m_schema.keys()) {
        const QString group = QString::fromStdString(spec.group.empty() ? std::string("Other") : spec.group);
        auto form = forms.find(group);
        if (form == forms.end()) {
            auto* box = new QGroupBox(group, this);
            box->setObjectName(QStringLiteral("group:") + group);
            auto* formLayout = new QFormLayout(box);
            formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
            layout->addWidget(box);
            form = forms.emplace(group, formLayout).first;
            m_groupOrder << group;
        }
        const QString key = QString::fromStdString(spec.key);
        QWidget* field = createEditor(key, this);
        auto* label = new QLabel(labelOf(spec) + (spec.speed ? QStringLiteral(" ⚡") : QString()), this);
        label->setToolTip(tooltipOf(spec));
        form->second->addRow(label, field);
        m_rows[key] = Row{form->second, field, (key + QLatin1Char(' ') + QString::fromStdString(spec.doc)).toLower()};
        m_mainEditors.insert(key, field->property("input").value<QWidget*>());
    }
    layout->addStretch(1);
}

QWidget* ConfigForm::createEditor(const QString& key, QWidget* parent)
{
    const KeySpec* spec = m_schema.find(key.toStdString());
    if (!spec)
        return nullptr;
    auto* container = new QWidget(parent);
    auto* box = new QVBoxLayout(container);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(1);
    auto* problem = new QLabel(container);
    problem->setObjectName(QStringLiteral("problem:") + key);
    problem->setStyleSheet(QStringLiteral("color: #d04040;"));
    problem->setWordWrap(true);
    problem->hide();
    QWidget* input = createInput(*spec, key, container);
    input->setObjectName(key);
    input->setToolTip(tooltipOf(*spec));
    box->addWidget(input);
    box->addWidget(problem);
    container->setProperty("input", QVariant::fromValue<QWidget*>(input));
    m_editors.insert(key, input);
    m_problemLabels.insert(key, problem);
    syncEditor(*spec, input);
    if (m_problems.contains(key)) {
        problem->setText(m_problems.value(key));
        problem->show();
    }
    return container;
}

QWidget* ConfigForm::createInput(const KeySpec& spec, const QString& key, QWidget* container)
{
    switch (spec.type) {
    case ValueType::Bool: {
        auto* check = new QCheckBox(container);
        connect(check, &QCheckBox::toggled, this, [this, spec](bool on) { setValue(spec, ConfigValue(on)); });
        return check;
    }
    case ValueType::Int:
        return createIntInput(spec, container);
    case ValueType::Float:
        return createFloatInput(spec, container);
    case ValueType::Choice: {
        auto* combo = new QComboBox(container);
        for (const std::string& choice : spec.choices)
            combo->addItem(QString::fromStdString(choice));
        connect(combo, &QComboBox::currentTextChanged, this,
                [this, spec](const QString& text) { setValue(spec, ConfigValue(text.toStdString())); });
        return combo;
    }
    default: {
        auto* line = new QLineEdit(container);
        line->setPlaceholderText(QString::fromStdString(spec.expectation()));
        connect(line, &QLineEdit::textEdited, this, [this, key](const QString& text) { setText(key, text); });
        return line;
    }
    }
}

QWidget* ConfigForm::createIntInput(const KeySpec& spec, QWidget* container)
{
    auto* spin = new QSpinBox(container);
    const double lo = spec.minimum ? *spec.minimum + (spec.minimumExclusive ? 1 : 0) : INT_MIN;
    const double hi = spec.maximum ? *spec.maximum : INT_MAX;
    spin->setRange(static_cast<int>(std::max<double>(lo, INT_MIN)), static_cast<int>(std::min<double>(hi, INT_MAX)));
    spin->setKeyboardTracking(true);
    connect(spin, &QSpinBox::valueChanged, this, [this, spec](int v) { setValue(spec, ConfigValue(v)); });
    connectRangeProblem(spec, spin);
    return spin;
}

QWidget* ConfigForm::createFloatInput(const KeySpec& spec, QWidget* container)
{
    auto* spin = createFloatSpinBox(container);
    double lo = spec.minimum ? *spec.minimum : std::numeric_limits<double>::lowest();
    if (spec.minimum && spec.minimumExclusive)
        lo = std::nextafter(lo, std::numeric_limits<double>::infinity());
    spin->setRange(lo, spec.maximum ? *spec.maximum : std::numeric_limits<double>::max());
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, spec](double v) { setValue(spec, ConfigValue(v)); });
    connectRangeProblem(spec, spin);
    return spin;
}

void ConfigForm::connectRangeProblem(const KeySpec& spec, QAbstractSpinBox* spin)
{
    connect(spin->findChild<QLineEdit*>(), &QLineEdit::textEdited, this, [this, spec, spin] {
        setProblem(QString::fromStdString(spec.key),
                   spin->hasAcceptableInput()
                       ? QString()
                       : tr("Refused: expected %1").arg(QString::fromStdString(spec.expectation())));
    });
    connect(spin, &QAbstractSpinBox::editingFinished, this,
            [this, spec] { setProblem(QString::fromStdString(spec.key), {}); });
}

void ConfigForm::setValue(const KeySpec& spec, const ConfigValue& value)
{
    const QString key = QString::fromStdString(spec.key);
    try {
        if (m_config.value(spec.key) == value && m_problems.value(key).isEmpty())
            return;
        m_config.set(spec.key, value, kFormOrigin);
        setProblem(key, {});
    } catch (const std::exception& e) {
        setProblem(key, withoutKeyPrefix(e.what(), spec.key));
        return;
    }
    syncEditors(key);
    Q_EMIT changed();
}

QString ConfigForm::setText(const QString& key, const QString& text)
{
    const std::string k = key.toStdString();
    if (!m_config.contains(k))
        return tr("unknown config key '%1'").arg(key);
    try {
        ResolvedConfig scratch = m_config;
        scratch.setFromText(k, text.trimmed().toStdString(), kFormOrigin);
        const bool same = scratch.value(k) == m_config.value(k);
        m_config.setFromText(k, text.trimmed().toStdString(), kFormOrigin);
        setProblem(key, {});
        if (!same) {
            syncEditors(key);
            Q_EMIT changed();
        }
        return {};
    } catch (const std::exception& e) {
        const QString problem = withoutKeyPrefix(e.what(), k);
        setProblem(key, problem);
        return problem;
    }
}

void ConfigForm::setConfig(const ResolvedConfig& config)
{
    m_config = config;
    m_problems.clear();
    for (const KeySpec& spec : m_schema.keys()) {
        const QString key = QString::fromStdString(spec.key);
        for (const auto& label : m_problemLabels.values(key))
            if (label)
                label->hide();
        syncEditors(key);
    }
    Q_EMIT changed();
}

void ConfigForm::setProblem(const QString& key, const QString& problem)
{
    if (problem.isEmpty())
        m_problems.remove(key);
    else
        m_problems.insert(key, problem);
    for (const auto& label : m_problemLabels.values(key)) {
        if (!label)
            continue;
        label->setText(problem);
        label->setVisible(!problem.isEmpty());
    }
    for (const auto& editor : m_editors.values(key))
        if (editor)
            editor->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("border: 1px solid #d04040;"));
}

void ConfigForm::syncEditors(const QString& key)
{
    const KeySpec* spec = m_schema.find(key.toStdString());
    if (!spec)
        return;
    for (const auto& editor : m_editors.values(key))
        if (editor)
            syncEditor(*spec, editor);
}

void ConfigForm::syncEditor(const KeySpec& spec, QWidget* editor)
{
    const ConfigValue& value = m_config.value(spec.key);
    const QSignalBlocker blocker(editor);
    if (auto* check = qobject_cast<QCheckBox*>(editor)) {
        check->setChecked(value.asBool());
    } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
        spin->setValue(static_cast<int>(value.asInt()));
    } else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(editor)) {
        dspin->setValue(value.asDouble());
    } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
        combo->setCurrentText(QString::fromStdString(value.asString()));
    } else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
        // A field with a pending problem keeps what the user typed.
        if (!m_problems.contains(QString::fromStdString(spec.key))) {
            const bool isString = spec.type == ValueType::String;
            line->setText(QString::fromStdString(isString ? value.asString() : value.toText()));
        }
    }
}

void ConfigForm::filter(const QString& text)
{
    const QString needle = text.trimmed().toLower();
    std::map<QFormLayout*, bool> anyShown; // per group's layout: does a row still show?
    for (auto& [key, row] : m_rows) {
        const bool shown = needle.isEmpty() || row.haystack.contains(needle);
        row.layout->setRowVisible(row.field, shown);
        anyShown[row.layout] = anyShown[row.layout] || shown;
    }
    // A group none of whose keys match is hidden whole, not left as an empty box.
    for (const auto& [layout, shown] : anyShown)
        if (QWidget* group = layout->parentWidget())
            group->setVisible(shown);
}

} // namespace pitwall::ui
