// Fuzz target: the vendor tools' outputs (nvidia-smi -L and --query-gpu CSV; amd-smi static --partition,
// partition, list -e and set). The same text goes through every parser: each must take any text without a
// crash (a new driver can print anything), and the grouping of AMD partitions into devices must cover every GPU.
#include "fuzztarget.h"

#include "core/devices/amdsmi.h"
#include "core/devices/nvidiasmi.h"

using namespace pitwall;

PITWALL_FUZZ_TARGET
{
    const std::string out = fuzz::text(data, size);
    return fuzz::runInput([&] {
        NvidiaSmiList list = parseNvidiaSmiList(out);
        applyNvidiaSmiQuery(out, list.gpus);
        for (const NvidiaGpu& gpu : list.gpus)
            for (const NvidiaMigDevice& mig : gpu.migDevices)
                PITWALL_FUZZ_CHECK(mig.memoryBytes >= 0, mig.profile);

        for (AmdSmiReport report : {parseAmdSmiStaticPartition(out), parseAmdSmiPartition(out)}) {
            mergeAmdSmiList(out, report);
            std::size_t grouped = 0;
            for (const AmdDevice& device : groupAmdDevices(report))
                grouped += device.gpuIds.size();
            PITWALL_FUZZ_CHECK(grouped == report.gpus.size(),
                               std::to_string(grouped) + " of " + std::to_string(report.gpus.size()) + " GPUs grouped");
        }
        (void)parseAmdSmiSetOutput(out, 0);
        (void)parseAmdSmiSetOutput(out, 1);
    });
}
