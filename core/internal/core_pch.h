// The precompiled header of pitwall_core (cmake/PitwallHelpers.cmake, pitwall_pch): the standard library and the
// third-party headers most of core/ includes, parsed once per build instead of once per source file. Nothing of
// Pitwall's own is here, so editing a Pitwall header never rebuilds the header. Every source still includes what it
// uses: a build without precompiled headers (PITWALL_PCH=OFF) compiles the same code.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
