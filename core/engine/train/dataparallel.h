#pragma once
// Data-parallel training across logical devices, one process each: a LibTorch c10d process group averages
// gradients after every backward pass, so N ranks with batch B/N step like one with batch B. Gloo on CPU; NCCL
// (RCCL on ROCm) on GPUs when the linked LibTorch has it (training.distribution.backend).
// Engine-internal: includes torch.

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace pitwall::engine {

enum class CollectiveBackend { Gloo, Nccl };

// training.distribution.backend for a run on `device` whose ranks are logical devices of `partitionMode`. auto
// picks NCCL for GPU runs over whole devices (SPX) when built in; partitions of one GPU (MIG instances, or two
// ranks on one device) are not something NCCL runs between, so they, and CPU runs, get Gloo. InputError for nccl on
// a CPU run or without NCCL in the linked LibTorch.
CollectiveBackend collectiveBackendFor(const std::string& setting, const torch::Device& device,
                                       const std::string& partitionMode);
bool ncclBuiltIn();

class DataParallel {
public:
    // Joins the group through a rendezvous file shared by all ranks (created by the first one), or through
    // "tcp://HOST:PORT/PREFIX", a TCP store that another process serves (keys under PREFIX). Throws
    // RuntimeError when the other ranks do not arrive within `timeout`. With NCCL the tensors handed in live
    // on `device`.
    DataParallel(int rank, int worldSize, const std::string& rendezvousFile, std::chrono::milliseconds timeout,
                 CollectiveBackend backend = CollectiveBackend::Gloo, torch::Device device = torch::kCPU);
    ~DataParallel();

    int rank() const { return m_rank; }
    int worldSize() const { return m_worldSize; }
    CollectiveBackend backend() const { return m_backend; }

    // Copies rank 0's values into every rank (parameters and buffers, so all ranks start identical).
    void broadcast(const std::vector<torch::Tensor>& tensors);
    // Sums the gradients of `parameters` over the ranks and divides by the world size (one flat buffer).
    void averageGradients(const std::vector<torch::Tensor>& parameters);
    // Sums a few scalars over the ranks (for sample counts, losses).
    std::vector<double> sum(const std::vector<double>& values);
    void barrier();

private:
    struct Group;
    int m_rank;
    int m_worldSize;
    CollectiveBackend m_backend;
    torch::Device m_device;
    std::unique_ptr<Group> m_group;
};

} // namespace pitwall::engine
