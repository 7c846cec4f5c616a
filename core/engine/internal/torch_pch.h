#pragma once
// Precompiled header of pitwall_engine: LibTorch and the standard headers every engine file uses.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>
