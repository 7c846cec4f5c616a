#pragma once
// The world's only source of randomness. std::mt19937_64 is specified bit-for-bit by the standard, and the
// distributions below are our own (the standard library's distributions differ between implementations),
// so one seed gives the same worlds with any compiler and standard library.

#include <cstdint>
#include <random>

namespace pitwall::synth {

// SplitMix64 finaliser: derives independent seeds (episode e of seed s is mixSeed(s, e)).
inline std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t stream)
{
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed = 0) : m_engine(seed) {}

    std::uint64_t next() { return m_engine(); }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    // Uniform integer in [lo, hi] (inclusive).
    int uniformInt(int lo, int hi)
    {
        const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
        return lo + static_cast<int>(((next() >> 32) * span) >> 32);
    }
    bool chance(double probability) { return uniform() < probability; }
    // Bell-shaped in [mean - spread, mean + spread] (sum of three uniforms).
    double bell(double mean, double spread)
    {
        return mean + spread * ((uniform() + uniform() + uniform()) * (2.0 / 3.0) - 1.0);
    }

private:
    std::mt19937_64 m_engine;
};

} // namespace pitwall::synth
