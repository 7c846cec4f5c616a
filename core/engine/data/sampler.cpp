#include "core/engine/data/sampler.h"

#include "core/engine/data/augment.h"
#include "core/util/error.h"

#include <numeric>
#include <string>

namespace pitwall::engine::data {

std::vector<std::int64_t> hashedPermutation(std::int64_t n, std::uint64_t key)
{
    std::vector<std::int64_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    for (std::int64_t i = n - 1; i > 0; --i) {
        const std::uint64_t r = mixWords({key, static_cast<std::uint64_t>(i)});
        // Multiply-shift onto [0, i]: bias below 2^-40 for any dataset that fits in memory.
        const auto j = static_cast<std::int64_t>((static_cast<unsigned __int128>(r) * (i + 1)) >> 64);
        std::swap(p[i], p[j]);
    }
    return p;
}

EpochSampler::EpochSampler(std::int64_t datasetSize, ShardOptions options) : m_size(datasetSize), m_options(options)
{
    if (datasetSize <= 0)
        throw InputError("the dataset has no sample to draw");
    if (options.worldSize < 1 || options.rank < 0 || options.rank >= options.worldSize)
        throw InputError("rank " + std::to_string(options.rank) + " is outside a world of " +
                         std::to_string(options.worldSize) + " logical devices");
}

std::int64_t EpochSampler::samplesPerEpoch() const
{
    if (m_options.replicate)
        return m_size;
    return (m_size + m_options.worldSize - 1) / m_options.worldSize;
}

std::vector<std::int64_t> EpochSampler::indices(std::int64_t epoch) const
{
    const auto epochWord = static_cast<std::uint64_t>(epoch);
    if (m_options.replicate) {
        if (!m_options.shuffle) {
            std::vector<std::int64_t> all(static_cast<std::size_t>(m_size));
            std::iota(all.begin(), all.end(), 0);
            return all;
        }
        return hashedPermutation(m_size, mixWords({m_options.seed, epochWord, 0x5265706cull /*"Repl"*/,
                                                   static_cast<std::uint64_t>(m_options.rank)}));
    }
    std::vector<std::int64_t> order(static_cast<std::size_t>(m_size));
    if (m_options.shuffle)
        order = hashedPermutation(m_size, mixWords({m_options.seed, epochWord, 0x53686172ull /*"Shar"*/}));
    else
        std::iota(order.begin(), order.end(), 0);
    const std::int64_t perRank = samplesPerEpoch();
    std::vector<std::int64_t> mine;
    mine.reserve(static_cast<std::size_t>(perRank));
    for (std::int64_t k = 0; k < perRank; ++k) {
        const std::int64_t position = m_options.rank + k * m_options.worldSize;
        mine.push_back(order[static_cast<std::size_t>(position % m_size)]);
    }
    return mine;
}

} // namespace pitwall::engine::data
