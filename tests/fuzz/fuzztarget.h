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
#include <stdexcept>
#include <filesystem>
#include <fstream>
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

// A folder of its own under the temporary directory for a target whose parser reads files: /tmp/pitwall-fuzz-
// <name> (fixed, so that paths stored inside committed inputs, the pre-processed cache's source list, stay
// valid), emptied when the process first asks for it.
inline std::filesystem::path scratchDir(const std::string& name)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pitwall-fuzz-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// Writes `size` bytes to `file` (the input of a parser that reads files), replacing what was there.
inline void writeFile(const std::filesystem::path& file, const std::uint8_t* data, std::size_t size)
{
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out.flush())
        throw std::runtime_error("fuzz: cannot write " + file.string());
}

} // namespace pitwall::fuzz

// A promise of the parser: when it does not hold, the run stops with the input saved as a crash.
#define PITWALL_FUZZ_CHECK(condition, detail)                                                                      \
    do {                                                                                                           \
        if (!(condition))                                                                                          \
            ::pitwall::fuzz::fail(__FILE__, __LINE__, #condition, (detail));                                       \
    } while (false)

#define PITWALL_FUZZ_TARGET extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
