#pragma once
// Label vocabularies of the synthetic world, identical to LEAD / TransFuser's (order = class index).

#include <cstdint>
#include <string>
#include <vector>

namespace pitwall::synth {

// Perspective semantic segmentation (10 classes).
enum class SemanticClass : std::uint8_t {
    Unlabeled = 0,
    Vehicle,
    Road,
    TrafficLight,
    Pedestrian,
    RoadLine,
    Obstacle,
    SpecialVehicle,
    StopSign,
    Biker,
};
constexpr int kSemanticClassCount = 10;

// Bird's-eye-view semantic segmentation (13 classes).
enum class BevClass : std::uint8_t {
    Unlabeled = 0,
    Road,
    LaneMarkers,
    StopSigns,
    Vehicle,
    Walker,
    Obstacle,
    ParkingVehicle,
    SpecialVehicle,
    Biker,
    TrafficGreen,
    TrafficRedNormal,
    TrafficRedNotNormal,
};
constexpr int kBevClassCount = 13;

// Box detection (CenterNet heatmap) classes (8).
enum class BoxClass : std::uint8_t {
    Vehicle = 0,
    Walker,
    TrafficLight,
    StopSign,
    Special,
    Obstacle,
    Parking,
    Biker,
};
constexpr int kBoxClassCount = 8;

// Navigation command given with the route (6 values, one-hot in the model). The synthetic roads have no
// junctions, so only FollowLane and the two lane changes occur; the turn values are reserved.
enum class DrivingCommand : int {
    FollowLane = 0,
    ChangeLaneLeft = 1,
    ChangeLaneRight = 2,
    TurnLeft = 3,
    TurnRight = 4,
    GoStraight = 5,
};
constexpr int kDrivingCommandCount = 6;

// Closest-in-path-object levels: 1 closest object in the ego path within reaction distance (at most one per
// frame), 2 cutting into / out of the ego lane, 3 relevant (left / ego / right lane nearby), 4 unlikely to matter.
enum class CipoLevel : std::uint8_t { Closest = 1, CutInOut = 2, Relevant = 3, Other = 4 };

// Upper-case names as LEAD writes them ("VEHICLE"), indexed by class value.
const std::vector<std::string>& semanticClassNames();
const std::vector<std::string>& bevClassNames();
const std::vector<std::string>& boxClassNames();
// "follow_lane", "change_lane_left", ...
const std::vector<std::string>& drivingCommandNames();

} // namespace pitwall::synth
