// Compiles nothing of its own: the target pitwall_torch_pch exists to build the torch precompiled header
// (internal/torch_pch.h) once, with the flags every target that reuses it has (cmake/PitwallHelpers.cmake).
