#include "core/engine/train/dataparallel.h"

#include "core/util/error.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#if defined(PITWALL_WITH_CUDA) && defined(USE_C10D_NCCL)
#define PITWALL_WITH_NCCL 1
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace pitwall::engine {

bool ncclBuiltIn()
{
#ifdef PITWALL_WITH_NCCL
    return true;
#else
    return false;
#endif
}

CollectiveBackend collectiveBackendFor(const std::string& setting, const torch::Device& device,
                                       const std::string& partitionMode)
{
    if (setting == "gloo")
        return CollectiveBackend::Gloo;
    if (setting == "nccl") {
        if (device.is_cpu())
            throw InputError("training.distribution.backend=nccl needs a GPU run; CPU runs use gloo");
        if (!ncclBuiltIn())
            throw InputError("training.distribution.backend=nccl: the linked LibTorch has no NCCL/RCCL; use gloo");
        return CollectiveBackend::Nccl;
    }
    const bool wholeDevices = partitionMode == "SPX" || partitionMode == "spx";
    return !device.is_cpu() && wholeDevices && ncclBuiltIn() ? CollectiveBackend::Nccl : CollectiveBackend::Gloo;
}

// The c10d group of one backend; every collective waits for its work to finish.
struct DataParallel::Group {
    c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#ifdef PITWALL_WITH_NCCL
    c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif
    template <typename Collective>
    void run(Collective&& collective)
    {
#ifdef PITWALL_WITH_NCCL
        if (nccl) {
            collective(*nccl)->wait();
            return;
        }
#endif
        collective(*gloo)->wait();
    }
};

DataParallel::DataParallel(int rank, int worldSize, const std::string& rendezvousFile, std::chrono::milliseconds timeout,
                           CollectiveBackend backend, torch::Device device)
    : m_rank(rank), m_worldSize(worldSize), m_backend(backend), m_device(device), m_group(std::make_unique<Group>())
{
    try {
        auto store = c10::make_intrusive<c10d::FileStore>(rendezvousFile, worldSize);
        store->setTimeout(timeout);
        if (backend == CollectiveBackend::Nccl) {
#ifdef PITWALL_WITH_NCCL
            auto options = c10d::ProcessGroupNCCL::Options::create();
            options->timeout = timeout;
            m_group->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, worldSize, options);
#else
            throw InputError("the linked LibTorch has no NCCL/RCCL");
#endif
        } else {
            auto options = c10d::ProcessGroupGloo::Options::create();
            options->timeout = timeout;
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
            m_group->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, worldSize, options);
        }
    } catch (const std::exception& e) {
        throw RuntimeError("rank " + std::to_string(rank) + " of " + std::to_string(worldSize) +
                           " could not join the data-parallel group (" + rendezvousFile + "): " + e.what());
    }
}

DataParallel::~DataParallel() = default;

void DataParallel::broadcast(const std::vector<torch::Tensor>& tensors)
{
    torch::NoGradGuard noGrad;
    for (const torch::Tensor& t : tensors) {
        std::vector<at::Tensor> buffer{t.detach().contiguous()};
        m_group->run([&](auto& group) { return group.broadcast(buffer); });
        if (!buffer[0].is_same(t))
            t.detach().copy_(buffer[0]);
    }
}

void DataParallel::averageGradients(const std::vector<torch::Tensor>& parameters)
{
    torch::NoGradGuard noGrad;
    // Only parameters that got a gradient: the same set on every rank (same model, same stage), and a
    // parameter without one must stay untouched by the optimiser as in a one-process run.
    std::vector<torch::Tensor> withGrad, grads;
    for (const torch::Tensor& p : parameters)
        if (p.grad().defined()) {
            withGrad.push_back(p);
            grads.push_back(p.grad().reshape({-1}));
        }
    if (grads.empty())
        return;
    std::vector<at::Tensor> flat{torch::cat(grads)};
    m_group->run([&](auto& group) { return group.allreduce(flat); });
    flat[0].div_(static_cast<double>(m_worldSize));
    std::int64_t offset = 0;
    for (const torch::Tensor& p : withGrad) {
        const std::int64_t n = p.numel();
        p.mutable_grad().copy_(flat[0].narrow(0, offset, n).view_as(p));
        offset += n;
    }
}

std::vector<double> DataParallel::sum(const std::vector<double>& values)
{
    std::vector<at::Tensor> buffer{torch::tensor(values, torch::kDouble).to(m_device)};
    m_group->run([&](auto& group) { return group.allreduce(buffer); });
    const auto t = buffer[0].cpu();
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

void DataParallel::barrier()
{
    m_group->run([](auto& group) { return group.barrier(); });
}

} // namespace pitwall::engine
