// dataset.json and meta/NNNNNN.json: writing and strict reading.
#include "core/synth/dataset.h"

#include "core/util/error.h"

namespace pitwall::synth {

namespace {

using nlohmann::json;

// Reads a required member; a missing member or a wrong type is an InputError naming the file and the key.
template <typename T> T field(const json& object, const char* key, const std::string& file)
{
    if (!object.is_object() || !object.contains(key))
        throw InputError(SourceLocation{file}, std::string("missing '") + key + "'");
    try {
        return object.at(key).get<T>();
    } catch (const json::exception&) {
        throw InputError(SourceLocation{file}, std::string("'") + key + "' has the wrong type");
    }
}

const json& member(const json& object, const char* key, const std::string& file)
{
    if (!object.is_object() || !object.contains(key))
        throw InputError(SourceLocation{file}, std::string("missing '") + key + "'");
    return object.at(key);
}

json point(Vec2 p)
{
    return json::array({p.x, p.y});
}

Vec2 pointFrom(const json& value, const char* what, const std::string& file)
{
    if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_number())
        throw InputError(SourceLocation{file}, std::string("'") + what + "' must be [x, y]");
    return {value[0].get<double>(), value[1].get<double>()};
}

const char* lightName(LightState s)
{
    return s == LightState::Green ? "green" : (s == LightState::Yellow ? "yellow" : "red");
}

json cameraJson(const CameraConfig& c)
{
    return {{"width", c.width},
            {"height", c.height},
            {"horizontal_fov_deg", c.horizontalFovDeg},
            {"fx", c.focalPx()},
            {"fy", c.focalPx()},
            {"cx", c.centreX()},
            {"cy", c.centreY()},
            {"x_m", c.forwardM},
            {"y_m", 0.0},
            {"z_m", c.heightM},
            {"pitch_down_deg", c.pitchDownDeg}};
}

} // namespace

json datasetJson(const SynthOptions& o)
{
    const BevConfig& bev = o.sensors.bev;
    const LidarConfig& lidar = o.sensors.lidar;
    const int episodes = (o.frames + o.episodeFrames - 1) / o.episodeFrames;
    return {
        {"format", kDatasetFormat},
        {"generator_version", kGeneratorVersion},
        {"frames", o.frames},
        {"episode_frames", o.episodeFrames},
        {"episodes", episodes},
        {"seed", o.seed},
        {"frame_interval_s", o.frameIntervalS},
        {"simulation_step_s", o.simulationStepS},
        {"warmup_s", o.warmupS},
        {"world", {{"traffic_density", o.world.trafficDensity}, {"pedestrian_density", o.world.pedestrianDensity}}},
        {"camera", cameraJson(o.sensors.camera)},
        {"rgb", {{"jpeg_quality", o.jpegQuality}, {"chroma_subsampling", "4:4:4"}}},
        {"depth",
         {{"png_bits", 16},
          {"png_scale_per_m", kDepthPngScale},
          {"sky_m", kSkyDepthM},
          {"kind", "planar (along the optical axis)"}}},
        {"bev",
         {{"width", bev.width},
          {"height", bev.height},
          {"pixels_per_meter", bev.pixelsPerMeter},
          {"x_min_m", bev.xMinM},
          {"x_max_m", bev.xMaxM()},
          {"y_min_m", -bev.yMaxM()},
          {"y_max_m", bev.yMaxM()},
          {"layout", "column c: x (forward) from x_min_m; row r: y (left) from y_max_m down"}}},
        {"lidar",
         {{"channels", lidar.channels},
          {"azimuth_steps", lidar.azimuthSteps},
          {"upper_fov_deg", lidar.upperFovDeg},
          {"lower_fov_deg", lidar.lowerFovDeg},
          {"height_m", lidar.heightM},
          {"max_range_m", lidar.maxRangeM},
          {"histogram_max_per_cell", lidar.histogramMaxPerCell},
          {"png", "16-bit returns per BEV cell; input = min(count, histogram_max_per_cell) / histogram_max_per_cell"}}},
        {"waypoints",
         {{"count", kWaypointCount}, {"interval_s", kWaypointIntervalS}, {"frame", "ego: x forward, y left"}}},
        {"classes",
         {{"semantic", semanticClassNames()},
          {"bev_semantic", bevClassNames()},
          {"boxes", boxClassNames()},
          {"commands", drivingCommandNames()},
          {"cipo_levels", {"1 closest in path", "2 cut-in/out", "3 relevant", "4 other"}}}},
        {"files",
         {{"rgb", "rgb/NNNNNN.jpg"},
          {"semantic", "semantic/NNNNNN.png"},
          {"depth", "depth/NNNNNN.png"},
          {"bev_semantic", "bev_semantic/NNNNNN.png"},
          {"lidar", "lidar/NNNNNN.png"},
          {"meta", "meta/NNNNNN.json"}}},
    };
}

DatasetInfo datasetInfoFromJson(const json& j, const std::string& file)
{
    if (field<std::string>(j, "format", file) != kDatasetFormat)
        throw InputError(SourceLocation{file}, std::string("'format' is not '") + kDatasetFormat + "'");
    DatasetInfo info;
    info.generatorVersion = field<int>(j, "generator_version", file);
    if (info.generatorVersion < 1 || info.generatorVersion > kGeneratorVersion)
        throw InputError(SourceLocation{file}, "generator_version " + std::to_string(info.generatorVersion) +
                                                   " is not supported (this build reads 1.." +
                                                   std::to_string(kGeneratorVersion) + ")");
    info.frames = field<int>(j, "frames", file);
    info.episodeFrames = field<int>(j, "episode_frames", file);
    info.seed = field<std::uint64_t>(j, "seed", file);
    info.frameIntervalS = field<double>(j, "frame_interval_s", file);
    info.jpegQuality = field<int>(member(j, "rgb", file), "jpeg_quality", file);
    const json& camera = member(j, "camera", file);
    CameraConfig& c = info.sensors.camera;
    c.width = field<int>(camera, "width", file);
    c.height = field<int>(camera, "height", file);
    c.horizontalFovDeg = field<double>(camera, "horizontal_fov_deg", file);
    c.forwardM = field<double>(camera, "x_m", file);
    c.heightM = field<double>(camera, "z_m", file);
    c.pitchDownDeg = field<double>(camera, "pitch_down_deg", file);
    const json& bev = member(j, "bev", file);
    BevConfig& b = info.sensors.bev;
    b.width = field<int>(bev, "width", file);
    b.height = field<int>(bev, "height", file);
    b.pixelsPerMeter = field<double>(bev, "pixels_per_meter", file);
    b.xMinM = field<double>(bev, "x_min_m", file);
    const json& lidar = member(j, "lidar", file);
    LidarConfig& l = info.sensors.lidar;
    l.channels = field<int>(lidar, "channels", file);
    l.azimuthSteps = field<int>(lidar, "azimuth_steps", file);
    l.upperFovDeg = field<double>(lidar, "upper_fov_deg", file);
    l.lowerFovDeg = field<double>(lidar, "lower_fov_deg", file);
    l.heightM = field<double>(lidar, "height_m", file);
    l.maxRangeM = field<double>(lidar, "max_range_m", file);
    l.histogramMaxPerCell = field<int>(lidar, "histogram_max_per_cell", file);
    if (info.frames < 0 || info.episodeFrames < 1 || c.width < 1 || c.height < 1 || b.width < 1 || b.height < 1 ||
        b.pixelsPerMeter <= 0 || l.histogramMaxPerCell < 1)
        throw InputError(SourceLocation{file}, "sizes must be positive (frames >= 0)");
    return info;
}

json frameMetaJson(const FrameLabels& labels, const CameraConfig& camera, int frame, int episode, int episodeFrame)
{
    json objects = json::array();
    for (const ObjectLabel& o : labels.objects) {
        json object{{"id", o.id},
                    {"class", static_cast<int>(o.boxClass)},
                    {"class_name", boxClassNames()[static_cast<std::size_t>(o.boxClass)]},
                    {"cipo", static_cast<int>(o.cipo)},
                    {"relative_lane", o.relativeLane ? json(*o.relativeLane) : json(nullptr)},
                    {"bev", nullptr},
                    {"image", nullptr}};
        if (o.bev)
            object["bev"] = {{"x", o.bev->x},         {"y", o.bev->y},     {"length", o.bev->length},
                             {"width", o.bev->width}, {"yaw", o.bev->yaw}, {"speed", o.bev->speed}};
        if (o.image)
            object["image"] = {{"x", o.image->x},
                               {"y", o.image->y},
                               {"width", o.image->width},
                               {"height", o.image->height},
                               {"visible_pixels", o.image->visiblePixels}};
        objects.push_back(std::move(object));
    }
    json waypoints = json::array();
    for (const Vec2& p : labels.waypoints)
        waypoints.push_back(point(p));
    json light = nullptr;
    if (labels.lightState)
        light = {{"state", lightName(*labels.lightState)}, {"distance_m", labels.lightDistanceM}};
    return {{"frame", frame},
            {"episode", episode},
            {"episode_frame", episodeFrame},
            {"time_s", labels.timeS},
            {"speed", labels.speed},
            {"target_speed", labels.targetSpeed},
            {"command", static_cast<int>(labels.command)},
            {"command_name", drivingCommandNames()[static_cast<std::size_t>(labels.command)]},
            {"brake_reason", brakeReasonName(labels.brakeReason)},
            {"steer", labels.steer},
            {"acceleration", labels.acceleration},
            {"target_point", point(labels.targetPoint)},
            {"waypoints", waypoints},
            {"ego",
             {{"lane", labels.egoLane},
              {"target_lane", labels.targetLane},
              {"forward_lanes", labels.forwardLanes},
              {"lane_offset_m", labels.laneOffsetM}}},
            {"traffic_light", light},
            {"camera", cameraJson(camera)},
            {"objects", objects}};
}

FrameLabels frameLabelsFromJson(const json& j, const std::string& file)
{
    FrameLabels labels;
    labels.timeS = field<double>(j, "time_s", file);
    labels.speed = field<double>(j, "speed", file);
    labels.targetSpeed = field<double>(j, "target_speed", file);
    const int command = field<int>(j, "command", file);
    if (command < 0 || command >= kDrivingCommandCount)
        throw InputError(SourceLocation{file}, "'command' " + std::to_string(command) + " is out of range");
    labels.command = static_cast<DrivingCommand>(command);
    const std::string reason = field<std::string>(j, "brake_reason", file);
    for (BrakeReason r : {BrakeReason::None, BrakeReason::LeadVehicle, BrakeReason::Pedestrian, BrakeReason::Obstacle,
                          BrakeReason::RedLight, BrakeReason::Curve})
        if (reason == brakeReasonName(r))
            labels.brakeReason = r;
    labels.steer = field<double>(j, "steer", file);
    labels.acceleration = field<double>(j, "acceleration", file);
    labels.targetPoint = pointFrom(member(j, "target_point", file), "target_point", file);
    const json& waypoints = member(j, "waypoints", file);
    if (!waypoints.is_array() || waypoints.size() != kWaypointCount)
        throw InputError(SourceLocation{file}, "'waypoints' must hold " + std::to_string(kWaypointCount) + " points");
    for (std::size_t k = 0; k < waypoints.size(); ++k)
        labels.waypoints[k] = pointFrom(waypoints[k], "waypoints", file);
    const json& ego = member(j, "ego", file);
    labels.egoLane = field<int>(ego, "lane", file);
    labels.targetLane = field<int>(ego, "target_lane", file);
    labels.forwardLanes = field<int>(ego, "forward_lanes", file);
    labels.laneOffsetM = field<double>(ego, "lane_offset_m", file);
    const json& light = member(j, "traffic_light", file);
    if (!light.is_null()) {
        const std::string state = field<std::string>(light, "state", file);
        labels.lightState = state == "green"    ? LightState::Green
                            : state == "yellow" ? LightState::Yellow
                                                : LightState::Red;
        labels.lightDistanceM = field<double>(light, "distance_m", file);
    }
    const json& objects = member(j, "objects", file);
    if (!objects.is_array())
        throw InputError(SourceLocation{file}, "'objects' must be an array");
    for (const json& o : objects) {
        ObjectLabel label;
        label.id = field<int>(o, "id", file);
        const int cls = field<int>(o, "class", file);
        const int cipo = field<int>(o, "cipo", file);
        if (cls < 0 || cls >= kBoxClassCount || cipo < 1 || cipo > 4)
            throw InputError(SourceLocation{file},
                             "object " + std::to_string(label.id) + ": class or cipo out of range");
        label.boxClass = static_cast<BoxClass>(cls);
        label.cipo = static_cast<CipoLevel>(cipo);
        const json& lane = member(o, "relative_lane", file);
        if (!lane.is_null())
            label.relativeLane = field<int>(o, "relative_lane", file);
        const json& bev = member(o, "bev", file);
        if (!bev.is_null())
            label.bev = BevBox{field<double>(bev, "x", file),      field<double>(bev, "y", file),
                               field<double>(bev, "length", file), field<double>(bev, "width", file),
                               field<double>(bev, "yaw", file),    field<double>(bev, "speed", file)};
        const json& image = member(o, "image", file);
        if (!image.is_null())
            label.image =
                ImageBox{field<int>(image, "x", file), field<int>(image, "y", file), field<int>(image, "width", file),
                         field<int>(image, "height", file), field<int>(image, "visible_pixels", file)};
        labels.objects.push_back(label);
    }
    return labels;
}

} // namespace pitwall::synth
