#include "core/engine/train/dataparallel.h"

#include "core/util/error.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace pitwall::engine {

DataParallel::DataParallel(int rank, int worldSize, const std::string& rendezvousFile, std::chrono::milliseconds timeout)
    : m_rank(rank), m_worldSize(worldSize)
{
    try {
        auto store = c10::make_intrusive<c10d::FileStore>(rendezvousFile, worldSize);
        store->setTimeout(timeout);
        auto options = c10d::ProcessGroupGloo::Options::create();
        options->timeout = timeout;
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        m_group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, worldSize, options);
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
        m_group->broadcast(buffer)->wait();
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
    m_group->allreduce(flat)->wait();
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
    std::vector<at::Tensor> buffer{torch::tensor(values, torch::kDouble)};
    m_group->allreduce(buffer)->wait();
    const auto t = buffer[0];
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

void DataParallel::barrier() { m_group->barrier()->wait(); }

} // namespace pitwall::engine
