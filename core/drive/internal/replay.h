#pragma once
// Replays of closed-loop routes: one PNG per route, a grid of snapshots in time order, so a user sees what went
// wrong. Each snapshot shows a header (simulated time, route completion, driving score so far, the infraction
// of that moment in red), the camera view, and a top-down sketch around the ego (heading up, 0.25 m per pixel):
// road, lane lines, stop lines in their light's colour, other actors (vehicles blue, parked cars grey,
// pedestrians magenta, obstacles orange), the ego's path so far (cyan), the held plan (green) and its aim point
// (yellow), and red crosses where infractions happened.
//
// Snapshots are taken at regular intervals of about routeSeconds / panels, at every infraction and at the end.
// Written with the synthetic world's PNG encoder (no extra dependency). Plain C++ (no torch).

#include "core/drive/controller.h"
#include "core/drive/scoring.h"
#include "core/synth/render.h"

#include <string>
#include <vector>

namespace pitwall::drive {

class ReplayRecorder {
public:
    // `intervalS`: simulated time between regular snapshots.
    ReplayRecorder(const synth::SensorConfig& sensors, double intervalS);

    // Called after every tick. Takes a snapshot when one is due, an infraction happened, or `last` is set.
    void tick(const synth::World& world, const VehicleController& controller, const RouteMonitor& monitor, bool last);
    int snapshots() const { return static_cast<int>(m_panels.size()); }
    // Writes the grid to `path` (directories are created). Throws RuntimeError when it cannot be written.
    void write(const std::string& path) const;

    static constexpr int kSketchPx = 256;
    static constexpr double kMetresPerPx = 0.25;

private:
    struct Panel {
        int width = 0, height = 0;
        std::vector<std::uint8_t> rgb;
    };
    Panel render(const synth::World& world, const VehicleController& controller, const RouteMonitor& monitor,
                 bool infractionNow) const;

    synth::SensorConfig m_sensors;
    double m_intervalS;
    double m_nextS = 0;
    std::size_t m_infractionsSeen = 0;
    std::vector<synth::Vec2> m_trail;
    std::vector<Panel> m_panels;
};

// "route_03_seed_1234.png" style name of a route's replay.
std::string replayFileName(int routeIndex, std::uint64_t worldSeed);

} // namespace pitwall::drive
