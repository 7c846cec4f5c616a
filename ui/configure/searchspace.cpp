#include "ui/configure/searchspace.h"

#include "core/config/yamlload.h"
#include "core/util/error.h"

#include <QLocale>
#include <QObject>

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <optional>

namespace pitwall::ui {

namespace {

// A node as YAML flow text; quoted scalars stay quoted.
QString flowText(const YAML::Node& node)
{
    if (node.IsScalar()) {
        const QString text = QString::fromStdString(node.Scalar());
        if (node.Tag() == "!") {
            QString escaped = text;
            escaped.replace(QLatin1String("\\"), QLatin1String("\\\\"))
                .replace(QLatin1String("\""), QLatin1String("\\\""));
            return QLatin1Char('"') + escaped + QLatin1Char('"');
        }
        return text;
    }
    if (node.IsNull())
        return QStringLiteral("null");
    if (node.IsSequence()) {
        QStringList items;
        for (const YAML::Node& item : node)
            items << flowText(item);
        return QLatin1Char('[') + items.join(QLatin1String(", ")) + QLatin1Char(']');
    }
    QStringList items;
    for (const auto& item : node)
        items << flowText(item.first) + QLatin1String(": ") + flowText(item.second);
    return QLatin1Char('{') + items.join(QLatin1String(", ")) + QLatin1Char('}');
}

std::optional<double> number(const QString& text)
{
    bool ok = false;
    const double v = QLocale::c().toDouble(text.trimmed(), &ok);
    return ok && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

} // namespace

const QStringList& spaceTypes()
{
    static const QStringList types = {"uniform", "loguniform", "int", "categorical", "fixed"};
    return types;
}

bool parseSpaceYaml(const QString& text, std::vector<SpaceRow>& rows, QString& error)
{
    rows.clear();
    YAML::Node root;
    try {
        root = YAML::Load(text.toStdString());
        checkYamlSize(root, "the search space");
    } catch (const YAML::Exception& e) {
        error = QObject::tr("%1:%2: %3").arg(e.mark.line + 1).arg(e.mark.column + 1).arg(QString::fromStdString(e.msg));
        return false;
    } catch (const InputError& e) {
        error = QString::fromStdString(e.what());
        return false;
    }
    if (!root || root.IsNull())
        return true;
    if (!root.IsMap()) {
        error = QObject::tr("a search space is a mapping of parameter names");
        return false;
    }
    for (const auto& item : root) {
        SpaceRow row;
        row.name = QString::fromStdString(item.first.Scalar());
        const YAML::Node& spec = item.second;
        if (spec.IsMap() && spec["type"]) {
            for (const auto& field : spec) {
                const QString key = QString::fromStdString(field.first.Scalar());
                const QString value = flowText(field.second);
                if (key == QLatin1String("type"))
                    row.type = value;
                else if (key == QLatin1String("min"))
                    row.min = value;
                else if (key == QLatin1String("max"))
                    row.max = value;
                else if (key == QLatin1String("step"))
                    row.step = value;
                else if (key == QLatin1String("values"))
                    row.values = value;
                else
                    row.extra.append({key, value});
            }
        } else {
            row.type = QStringLiteral("fixed");
            row.values = flowText(spec);
        }
        rows.push_back(row);
    }
    return true;
}

QString spaceToYaml(const std::vector<SpaceRow>& rows)
{
    QString out;
    for (const SpaceRow& row : rows) {
        out += row.name + QLatin1String(": ");
        if (row.type == QLatin1String("fixed")) {
            out += row.values.trimmed().isEmpty() ? QStringLiteral("null") : row.values.trimmed();
        } else {
            QStringList fields{QStringLiteral("type: ") + row.type};
            if (!row.min.trimmed().isEmpty())
                fields << QStringLiteral("min: ") + row.min.trimmed();
            if (!row.max.trimmed().isEmpty())
                fields << QStringLiteral("max: ") + row.max.trimmed();
            if (!row.step.trimmed().isEmpty())
                fields << QStringLiteral("step: ") + row.step.trimmed();
            if (!row.values.trimmed().isEmpty())
                fields << QStringLiteral("values: ") + row.values.trimmed();
            for (const auto& [key, value] : row.extra)
                fields << key + QLatin1String(": ") + value;
            out += QLatin1Char('{') + fields.join(QLatin1String(", ")) + QLatin1Char('}');
        }
        out += QLatin1Char('\n');
    }
    return out;
}

QString checkSpaceRow(const SpaceRow& row)
{
    if (row.name.trimmed().isEmpty())
        return QObject::tr("the parameter needs a name");
    if (!spaceTypes().contains(row.type))
        return QObject::tr("unknown type '%1' (uniform, loguniform, int, categorical or a fixed value)").arg(row.type);
    if (row.type == QLatin1String("fixed")) {
        try {
            YAML::Load(row.values.toStdString());
        } catch (const YAML::Exception& e) {
            return QObject::tr("the value is not YAML: %1").arg(QString::fromStdString(e.msg));
        }
        return {};
    }
    if (row.type == QLatin1String("categorical")) {
        try {
            const YAML::Node values = YAML::Load(row.values.toStdString());
            if (!values.IsSequence() || values.size() == 0)
                return QObject::tr("a categorical parameter needs values: [a, b, ...]");
        } catch (const YAML::Exception& e) {
            return QObject::tr("values are not a YAML list: %1").arg(QString::fromStdString(e.msg));
        }
        return {};
    }
    const auto lo = number(row.min);
    const auto hi = number(row.max);
    if (!lo || !hi)
        return QObject::tr("min and max must be numbers");
    if (*lo > *hi)
        return QObject::tr("min %1 is above max %2").arg(row.min, row.max);
    if (row.type == QLatin1String("loguniform") && *lo <= 0)
        return QObject::tr("a loguniform range must be above 0");
    if (row.type == QLatin1String("int") && (std::floor(*lo) != *lo || std::floor(*hi) != *hi))
        return QObject::tr("an int range needs integer bounds");
    if (!row.step.trimmed().isEmpty()) {
        const auto step = number(row.step);
        if (!step || *step <= 0)
            return QObject::tr("step must be a number above 0");
    }
    return {};
}

} // namespace pitwall::ui
