#include "core/synth/classes.h"

namespace pitwall::synth {

const std::vector<std::string>& semanticClassNames()
{
    static const std::vector<std::string> names{"UNLABELED",  "VEHICLE",   "ROAD",     "TRAFFIC_LIGHT",
                                                "PEDESTRIAN", "ROAD_LINE", "OBSTACLE", "SPECIAL_VEHICLE",
                                                "STOP_SIGN",  "BIKER"};
    return names;
}

const std::vector<std::string>& bevClassNames()
{
    static const std::vector<std::string> names{"UNLABELED",
                                                "ROAD",
                                                "LANE_MARKERS",
                                                "STOP_SIGNS",
                                                "VEHICLE",
                                                "WALKER",
                                                "OBSTACLE",
                                                "PARKING_VEHICLE",
                                                "SPECIAL_VEHICLE",
                                                "BIKER",
                                                "TRAFFIC_GREEN",
                                                "TRAFFIC_RED_NORMAL",
                                                "TRAFFIC_RED_NOT_NORMAL"};
    return names;
}

const std::vector<std::string>& boxClassNames()
{
    static const std::vector<std::string> names{"VEHICLE", "WALKER",   "TRAFFIC_LIGHT", "STOP_SIGN",
                                                "SPECIAL", "OBSTACLE", "PARKING",       "BIKER"};
    return names;
}

const std::vector<std::string>& drivingCommandNames()
{
    static const std::vector<std::string> names{"follow_lane", "change_lane_left", "change_lane_right",
                                                "turn_left",   "turn_right",       "go_straight"};
    return names;
}

} // namespace pitwall::synth
