#pragma once
// Data-parallel training across logical devices, one process each: LibTorch's c10d process group (Gloo on
// CPU) averages gradients after every backward pass, so N ranks with batch B/N step like one with batch B.
// Engine-internal: includes torch.

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace c10d {
class ProcessGroupGloo;
}

namespace pitwall::engine {

class DataParallel {
public:
    // Joins the group through a rendezvous file shared by all ranks (created by the first one). Throws
    // RuntimeError when the other ranks do not arrive within `timeout`.
    DataParallel(int rank, int worldSize, const std::string& rendezvousFile, std::chrono::milliseconds timeout);
    ~DataParallel();

    int rank() const { return m_rank; }
    int worldSize() const { return m_worldSize; }

    // Copies rank 0's values into every rank (parameters and buffers, so all ranks start identical).
    void broadcast(const std::vector<torch::Tensor>& tensors);
    // Sums the gradients of `parameters` over the ranks and divides by the world size (one flat buffer).
    void averageGradients(const std::vector<torch::Tensor>& parameters);
    // Sums a few scalars over the ranks (for sample counts, losses).
    std::vector<double> sum(const std::vector<double>& values);
    void barrier();

private:
    int m_rank;
    int m_worldSize;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> m_group;
};

} // namespace pitwall::engine
