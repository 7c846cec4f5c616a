#pragma once
// What every fuzz target shares. A target is libFuzzer's LLVMFuzzerTestOneInput over one parser of outside
// input: an InputError is the parser's normal answer to bad input (the CLI prints it and exits 2), so it ends
// the input quietly; any other exception escapes (std::terminate: a crash libFuzzer records), and so does a
// broken promise of the parser, checked with PITWALL_FUZZ_CHECK. The same function runs under libFuzzer
// (PITWALL_BUILD_FUZZERS, clang) and under replay_main.cpp, which feeds it the committed corpus in every test run.

#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace pitwall::fuzz {

// Runs one input through `parse`; an InputError is a normal return.
template <class Parse>
int runInput(Parse&& parse)
{
    try {
        parse();
    } catch (const InputError&) {
    }
    return 0;
}

[[noreturn]] inline void fail(const char* file, int line, const char* condition, const std::string& detail)
{
    std::fprintf(stderr, "%s:%d: fuzz check failed: %s%s%s\n", file, line, condition, detail.empty() ? "" : ": ",
                 detail.c_str());
    std::abort();
}

inline std::string text(const std::uint8_t* data, std::size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

} // namespace pitwall::fuzz

// A promise of the parser: when it does not hold, the run stops with the input saved as a crash.
#define PITWALL_FUZZ_CHECK(condition, detail)                                                                      \
    do {                                                                                                           \
        if (!(condition))                                                                                          \
            ::pitwall::fuzz::fail(__FILE__, __LINE__, #condition, (detail));                                       \
    } while (false)

#define PITWALL_FUZZ_TARGET extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
