#pragma once
// The samplers' random numbers: xoshiro256** seeded through splitmix64, so a seed gives the same sequence
// on every platform and standard library (std::uniform_real_distribution does not promise that).
// Internal to core/hpo.

#include <cmath>
#include <cstdint>
#include <vector>

namespace pitwall::hpo_internal {

inline std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// A seed for one trial from the study's seed and the trial number: trials are sampled in different
// processes, so each gets its own stream instead of one stream shared in memory (as Optuna keeps it).
inline std::uint64_t deriveSeed(std::uint64_t studySeed, std::uint64_t trialNumber)
{
    std::uint64_t state = studySeed ^ (trialNumber * 0xD1B54A32D192ED03ull);
    splitmix64(state);
    return splitmix64(state);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed)
    {
        for (auto& word : m_state)
            word = splitmix64(seed);
    }

    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
        const std::uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotl(m_state[3], 45);
        return result;
    }

    // Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform in [low, high).
    double uniform(double low, double high) { return low + (high - low) * uniform(); }
    // Uniform index in [0, count).
    std::size_t index(std::size_t count) { return static_cast<std::size_t>(uniform() * static_cast<double>(count)); }
    // An index drawn with probability proportional to weights (which sum to about 1).
    std::size_t choice(const std::vector<double>& cumulative)
    {
        const double u = uniform() * cumulative.back();
        for (std::size_t i = 0; i < cumulative.size(); ++i)
            if (u < cumulative[i])
                return i;
        return cumulative.size() - 1;
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_state[4];
};

// numpy.round: halves go to the even neighbour (the default floating-point rounding mode).
inline double roundHalfEven(double x)
{
    return std::nearbyint(x);
}

} // namespace pitwall::hpo_internal
