#include "core/engine/train/dataparallel.h"

#include "core/util/error.h"

#include "core/util/strings.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>

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

namespace {

// The rendezvous store: a file all ranks share, or "tcp://HOST:PORT/PREFIX", a client of the TCP store another
// process serves (a Slurm run's rank 0) with the group's keys under PREFIX.
c10::intrusive_ptr<c10d::Store> rendezvousStore(const std::string& rendezvous, int worldSize,
                                                std::chrono::milliseconds timeout)
{
    if (!startsWith(rendezvous, "tcp://")) {
        auto store = c10::make_intrusive<c10d::FileStore>(rendezvous, worldSize);
        store->setTimeout(timeout);
        return store;
    }
    const std::string rest = rendezvous.substr(6);
    const std::size_t colon = rest.rfind(':', rest.find('/'));
    const std::size_t slash = rest.find('/');
    const auto port = colon == std::string::npos ? std::nullopt : parseInteger(rest.substr(colon + 1, slash - colon - 1));
    if (!port || slash == std::string::npos)
        throw RuntimeError("the rendezvous '" + rendezvous + "' is not tcp://HOST:PORT/PREFIX");
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(*port);
    options.isServer = false;
    options.waitWorkers = false;
    options.timeout = timeout;
    auto tcp = c10::make_intrusive<c10d::TCPStore>(rest.substr(0, colon), options);
    return c10::make_intrusive<c10d::PrefixStore>(rest.substr(slash + 1), tcp);
}

// Gloo's network device: loopback for ranks of one machine (a file rendezvous); across machines the interface
// GLOO_SOCKET_IFNAME names, else the address this host's name resolves to.
std::shared_ptr<::gloo::transport::Device> glooDevice(const std::string& rendezvous)
{
    if (!startsWith(rendezvous, "tcp://"))
        return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    if (const char* name = std::getenv("GLOO_SOCKET_IFNAME"); name && *name)
        return c10d::ProcessGroupGloo::createDeviceForInterface(name);
    return c10d::ProcessGroupGloo::createDefaultDevice();
}

} // namespace

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
        auto store = rendezvousStore(rendezvousFile, worldSize, timeout);
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
            options->devices.push_back(glooDevice(rendezvousFile));
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
