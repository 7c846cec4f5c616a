// pitwall bench variants FILE
#include "app/cli/cli.h"
#include "app/cli/progress.h"

#include "core/engine/train/variantsbenchreport.h"
#include "core/util/cancel.h"

#include <iostream>

namespace pitwall::cli {

namespace {

int benchVariantsCheck(const Args& args)
{
    const engine::VariantsBenchSpec spec = engine::variantsBenchSpec(args);
    const std::vector<engine::VariantCheck> checks = engine::checkVariantsBench(spec);
    if (args.flag("json"))
        std::cout << engine::variantsCheckJson(spec, checks).dump(2) << "\n";
    else
        std::cout << engine::variantsCheckText(spec, checks);
    return kExitOk;
}

int benchVariants(const Args& args)
{
    const engine::VariantsBenchSpec spec = engine::variantsBenchSpec(args);
    ProgressLine line;
    const engine::VariantsBenchResult out = engine::runVariantsBench(spec, processCancelToken(), line.reporter());
    if (args.flag("json"))
        std::cout << engine::variantsResultJson(spec.file, out.results).dump(2) << "\n";
    else
        std::cout << engine::variantsResultText(spec, out, args.flag("markdown"));
    return kExitOk;
}

} // namespace

void addBenchCommands(Cli& cli)
{
    Command variants{
        "bench variants",
        "train each variant of an experiment for N seeds and print LEAD's speed table",
        "FILE [dotted.key=value...] [--seeds N|LIST] [--only NAMES] [--markdown] [--db FILE] [--json]",
        "FILE lists a base config and variants (see configs/transfuser/speed.yaml). Each variant trains both\n"
        "stages for every seed as its own study '<name>/<variant>'; the table gives per-stage wall time,\n"
        "compute FPS (samples / step time after the batch arrived), full FPS (samples / epoch wall time) and the\n"
        "quality metric as mean ± sample std over seeds. Overrides apply to every variant. With a 'driving'\n"
        "section, every seed's run is also driven in closed loop ('pitwall eval driving', the same routes for\n"
        "every variant and seed) and the table gets a Driving Score column: with one seed, mean ± the standard\n"
        "error over routes; with several, mean ± sample std over seeds and a DS s.e. column (the mean of the\n"
        "seeds' standard errors over routes).",
        {dbOption(),
         jsonOption(),
         {"seeds", "N|LIST", "seeds to train: a count (0..N-1) or a list such as 0,1,2 (default: the file's)"},
         {"only", "NAMES", "comma-separated variant names to run"},
         {"markdown", "", "print the table as Markdown"}},
        benchVariants};
    variants.check = benchVariantsCheck;
    cli.add(std::move(variants));
}

} // namespace pitwall::cli
