#include "ui/configure/internal/runpages.h"

#include "core/jobs/benchjobs.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace pitwall::ui {

namespace {

const QStringList kModes{QStringLiteral("SPX"), QStringLiteral("DPX"), QStringLiteral("QPX"), QStringLiteral("CPX")};

// The option that carries a spec's field, without its dashes ("batch-sizes" for batch_sizes).
std::string optionOf(const JobFields& fields, const std::string& field)
{
    for (const JobField& f : fields.fields)
        if (f.field == field)
            return f.option.substr(std::min<std::size_t>(2, f.option.size()));
    return {};
}

} // namespace

VariantsPage::VariantsPage(QWidget* parent)
    : RunPage({RunKind::Variants, tr("Variant benchmark"), VariantsBenchJob::kCommand, VariantsBenchJob::fields(),
               RunKindInfo::CliCheck::Yes},
              parent)
{
    setObjectName("variantsPage");
    m_file = withBrowse(lineEdit(this, "variantsFile", tr("a bench file, e.g. configs/transfuser/speed.yaml")),
                        PathKind::File, tr("YAML (*.yaml *.yml)"));
    addField(tr("Bench file"), m_file,
             tr("A base config and its variants; Speed options ▸ Compare these writes one for the current config"),
             {"file"});
    m_seeds = lineEdit(this, "variantsSeeds", tr("the file's"));
    addField(tr("Seeds"), m_seeds, tr("A count (0..N-1) or a list such as 0,1,2"), {"seeds"});
}

std::vector<std::string> VariantsPage::words(const RunContext& context) const
{
    VariantsBenchJob job;
    job.file = absolutePath(m_file->text());
    if (const auto seeds = given(m_seeds->text()))
        job.seeds = parseSeeds(*seeds);
    job.database = absolutePath(context.database);
    return job.toArgs();
}

void VariantsPage::setFromWords(const std::vector<std::string>& words, QStringList&, QStringList&)
{
    const VariantsBenchJob job = VariantsBenchJob::fromArgs(words);
    m_file->setText(QString::fromStdString(job.file));
    m_seeds->setText(job.seeds ? joinedNumbers(*job.seeds) : QString());
}

void VariantsPage::setFile(const QString& path)
{
    m_file->setText(path);
}

void VariantsPage::checkFields(const RunCheckContext&)
{
    needPath(m_file, PathKind::File, tr("a bench file"));
}

PartitionsPage::PartitionsPage(QWidget* parent)
    : RunPage({RunKind::Partitions, tr("Partition benchmark"), PartitionBenchJob::kCommand, PartitionBenchJob::fields(),
               RunKindInfo::CliCheck::Yes},
              parent)
{
    setObjectName("partitionsPage");
    m_modesBox = new QWidget(this);
    m_modesBox->setObjectName("partitionModes");
    auto* row = new QHBoxLayout(m_modesBox);
    row->setContentsMargins(0, 0, 0, 0);
    for (const QString& mode : kModes) {
        auto* box = new QCheckBox(mode, m_modesBox);
        box->setObjectName(QStringLiteral("partitionMode") + mode);
        box->setChecked(true);
        row->addWidget(box);
        m_modes.push_back(box);
    }
    addField(tr("Modes"), m_modesBox, tr("Partition modes to measure (unavailable ones are listed with why)"),
             {"modes"});
    m_batchSizes = lineEdit(this, "partitionBatchSizes", QStringLiteral("8,16,32"));
    m_batchSizes->setText(QStringLiteral("8,16,32"));
    addField(tr("Batch sizes"), m_batchSizes, tr("Batch sizes per trainer, comma-separated"), {"batch_sizes"});
    m_epochs = spinBox(this, "partitionEpochs", 1, 1000, 2);
    addField(tr("Epochs"), m_epochs, tr("Epochs of the first stage per run"), {"epochs"});
    // Beside the fields it replaces, not a row of its own (the page keeps its height at 1024x700).
    m_recommend = new QCheckBox(tr("Recommend: a brief run at the config's batch size"), this);
    m_recommend->setObjectName("partitionRecommend");
    m_recommend->setToolTip(tr("Every mode at the config's batch size for 1 epoch; the measurement is "
                               "stored for a search with partition auto and the Devices tab"));
    addRow(QString(), m_recommend);
    connect(m_recommend, &QCheckBox::toggled, this, [this](bool on) {
        m_batchSizes->setEnabled(!on);
        m_epochs->setEnabled(!on);
    });
}

std::vector<std::string> PartitionsPage::words(const RunContext& context) const
{
    PartitionBenchJob job;
    job.configs = {absolutePath(context.configFile)};
    std::vector<std::string> modes;
    for (QCheckBox* box : m_modes)
        if (box->isChecked())
            modes.push_back(box->text().toStdString());
    job.modes = modes;
    job.database = absolutePath(context.database);
    if (m_recommend->isChecked()) { // the batch size and epochs --recommend chooses
        job.recommend = true;
        return job.toArgs();
    }
    // The batch sizes read as the spec reads its option (InputError naming it for a bad list).
    cmdline::Args sizes;
    sizes.options[optionOf(fields(), "batch_sizes")] = {m_batchSizes->text().remove(QLatin1Char(' ')).toStdString()};
    job.batchSizes = PartitionBenchJob::fromArgs(sizes).batchSizes;
    job.epochs = m_epochs->value();
    job.database = absolutePath(context.database);
    return job.toArgs();
}

void PartitionsPage::setFromWords(const std::vector<std::string>& words, QStringList& configFiles,
                                  QStringList& overrides)
{
    const PartitionBenchJob job = PartitionBenchJob::fromArgs(words);
    configFiles << toQt(job.configs);
    overrides << toQt(job.overrides);
    const QStringList modes = job.modes ? toQt(*job.modes) : QStringList();
    for (QCheckBox* box : m_modes)
        box->setChecked(modes.isEmpty() || modes.contains(box->text()));
    if (job.batchSizes)
        m_batchSizes->setText(joinedNumbers(*job.batchSizes));
    m_epochs->setValue(job.epochs.value_or(m_epochs->value()));
    m_recommend->setChecked(job.recommend && !job.batchSizes && !job.epochs);
}

void PartitionsPage::checkFields(const RunCheckContext&)
{
    if (std::none_of(m_modes.begin(), m_modes.end(), [](QCheckBox* b) { return b->isChecked(); }))
        fail(m_modesBox, tr("choose at least one partition mode"));
}

LoaderPage::LoaderPage(QWidget* parent)
    : RunPage({RunKind::Loader, tr("Data-loader benchmark"), LoaderBenchJob::kCommand, LoaderBenchJob::fields(),
               RunKindInfo::CliCheck::Yes},
              parent)
{
    setObjectName("loaderPage");
    m_images = withBrowse(lineEdit(this, "loaderImages", tr("a folder of JPEGs")), PathKind::Folder);
    addField(tr("Image folder"), m_images, tr("JPEGs searched recursively"), {"images"});
    m_batches = spinBox(this, "loaderBatches", 1, 1000000, 200);
    addField(tr("Batches"), m_batches, tr("Batches measured after a warm-up of a quarter as many"),
             {"batches", "warmup"});
}

std::vector<std::string> LoaderPage::words(const RunContext& context) const
{
    LoaderBenchJob job;
    job.images = absolutePath(m_images->text());
    job.batches = m_batches->value();
    job.warmup = std::max(1, m_batches->value() / 4);
    job.database = absolutePath(context.database);
    return job.toArgs();
}

void LoaderPage::setFromWords(const std::vector<std::string>& words, QStringList&, QStringList&)
{
    const LoaderBenchJob job = LoaderBenchJob::fromArgs(words);
    m_images->setText(QString::fromStdString(job.images));
    m_batches->setValue(job.batches.value_or(m_batches->value()));
}

void LoaderPage::checkFields(const RunCheckContext&)
{
    needPath(m_images, PathKind::Folder, tr("a folder of JPEGs"));
}

} // namespace pitwall::ui
