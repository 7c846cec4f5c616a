#pragma once
// Which dataset indices one rank (logical device) visits in an epoch. No torch.
//
// Sharded (the default, as PyTorch's DistributedSampler): one shuffled order per epoch, the same on every rank,
// padded by wrapping to a multiple of the world size; rank r takes positions r, r + world, ... so shards are
// disjoint (up to the padding) and together cover the dataset.
// Replicated (data.replicate_dataset_per_device, as DALI's StreamPETR evaluation): every rank visits the whole
// dataset, in its own order (the shuffle also depends on the rank). For datasets too small to shard.

#include <cstdint>
#include <vector>

namespace pitwall::engine::data {

struct ShardOptions {
    int rank = 0;
    int worldSize = 1;
    bool replicate = false;
    bool shuffle = true;
    std::uint64_t seed = 0;
};

class EpochSampler {
public:
    // Throws InputError when rank/worldSize are inconsistent or the dataset is empty.
    EpochSampler(std::int64_t datasetSize, ShardOptions options);

    std::int64_t datasetSize() const { return m_size; }
    std::int64_t samplesPerEpoch() const; // of this rank
    // This rank's dataset indices for `epoch`, in visiting order. Pure: same arguments, same result.
    std::vector<std::int64_t> indices(std::int64_t epoch) const;
    const ShardOptions& options() const { return m_options; }

private:
    std::int64_t m_size;
    ShardOptions m_options;
};

// A permutation of 0..n-1 from a counter-based hash of `key` (Fisher-Yates).
std::vector<std::int64_t> hashedPermutation(std::int64_t n, std::uint64_t key);

} // namespace pitwall::engine::data
