#include "core/drive/scoring.h"

#include <algorithm>
#include <cmath>

namespace pitwall::drive {

using synth::ActorKind;

const char* infractionKey(InfractionType type)
{
    switch (type) {
    case InfractionType::CollisionPedestrian:
        return "collisions_pedestrian";
    case InfractionType::CollisionVehicle:
        return "collisions_vehicle";
    case InfractionType::CollisionStatic:
        return "collisions_layout";
    case InfractionType::RedLight:
        return "red_light";
    case InfractionType::RouteDeviation:
        return "route_dev";
    case InfractionType::AgentBlocked:
        return "vehicle_blocked";
    }
    return "unknown";
}

double penaltyMultiplier(InfractionType type)
{
    switch (type) {
    case InfractionType::CollisionPedestrian:
        return 0.5;
    case InfractionType::CollisionVehicle:
        return 0.6;
    case InfractionType::CollisionStatic:
        return 0.65;
    case InfractionType::RedLight:
        return 0.7;
    case InfractionType::RouteDeviation:
    case InfractionType::AgentBlocked:
        return 1.0;
    }
    return 1.0;
}

double infractionPenalty(const std::vector<Infraction>& infractions)
{
    double penalty = 1.0;
    for (const Infraction& i : infractions)
        penalty *= penaltyMultiplier(i.type);
    return penalty;
}

const char* routeStatusName(RouteStatus status)
{
    switch (status) {
    case RouteStatus::Completed:
        return "completed";
    case RouteStatus::Deviated:
        return "route_deviation";
    case RouteStatus::Blocked:
        return "blocked";
    case RouteStatus::TimedOut:
        return "timeout";
    case RouteStatus::Cancelled:
        return "cancelled";
    }
    return "unknown";
}

namespace {

const char* kindName(ActorKind kind)
{
    switch (kind) {
    case ActorKind::Car:
        return "car";
    case ActorKind::Van:
        return "van";
    case ActorKind::Truck:
        return "truck";
    case ActorKind::Emergency:
        return "emergency vehicle";
    case ActorKind::ParkedCar:
        return "parked car";
    case ActorKind::Pedestrian:
        return "pedestrian";
    case ActorKind::Cone:
        return "cone";
    case ActorKind::Barrel:
        return "barrel";
    case ActorKind::Barrier:
        return "barrier";
    }
    return "object";
}

InfractionType contactType(ActorKind kind)
{
    if (kind == ActorKind::Pedestrian)
        return InfractionType::CollisionPedestrian;
    if (synth::isObstacle(kind))
        return InfractionType::CollisionStatic;
    return InfractionType::CollisionVehicle; // driving and parked vehicles
}

} // namespace

TickObservation observe(const synth::World& world, double contactMarginM)
{
    const synth::EgoState& ego = world.ego();
    const synth::Road& road = world.road();
    TickObservation t;
    t.timeS = world.time();
    t.position = ego.pose.position;
    t.speedMps = ego.speed;
    t.s = ego.frenet.s;
    t.d = ego.frenet.d;
    const double yawOffset = synth::wrapAngle(ego.pose.yaw - road.heading(ego.frenet.s));
    t.frontS = ego.frenet.s + ego.length / 2 * std::cos(yawOffset);
    t.corridorRightD = road.rightEdge();
    t.corridorLeftD = 0.0;
    const double halfLength = ego.length / 2 + contactMarginM, halfWidth = ego.width / 2 + contactMarginM;
    for (const synth::Actor& actor : world.actors()) {
        if (std::abs(actor.s - ego.frenet.s) > 15)
            continue;
        const synth::Pose2 pose = world.actorPose(actor);
        if (synth::footprintsOverlap(ego.pose.position, halfLength, halfWidth, ego.pose.yaw, pose.position,
                                     actor.length / 2, actor.width / 2, pose.yaw))
            t.contacts.push_back({actor.id, contactType(actor.kind), kindName(actor.kind)});
    }
    const auto& scenery = world.scenery();
    for (std::size_t i = 0; i < scenery.size(); ++i) {
        const synth::SceneryItem& item = scenery[i];
        if (std::abs(item.s - ego.frenet.s) > 40)
            continue;
        const synth::Vec2 centre = road.point(item.s, item.d);
        if (synth::footprintsOverlap(ego.pose.position, halfLength, halfWidth, ego.pose.yaw, centre, item.length / 2,
                                     item.width / 2, road.heading(item.s))) {
            const char* what = item.kind == synth::SceneryKind::Building ? "building"
                               : item.kind == synth::SceneryKind::Tree   ? "tree"
                                                                         : "pole";
            t.contacts.push_back({-static_cast<int>(i) - 1, InfractionType::CollisionStatic, what});
        }
    }
    for (const synth::TrafficLight& light : world.lights())
        t.lights.push_back({light.id, light.s, light.state});
    return t;
}

RouteMonitor::RouteMonitor(const TickObservation& start, double routeLengthM, const MonitorOptions& options)
    : m_options(options), m_startS(start.s), m_routeLengthM(std::max(routeLengthM, 1.0)), m_bestS(start.s),
      m_lastFrontS(start.frontS), m_lastPosition(start.position)
{
}

double RouteMonitor::completionPercent() const
{
    return 100.0 * synth::clampValue((m_bestS - m_startS) / m_routeLengthM, 0.0, 1.0);
}

void RouteMonitor::add(InfractionType type, const TickObservation& tick, int id, const std::string& detail)
{
    m_infractions.push_back({type, tick.timeS, tick.position, tick.s, id, detail});
}

void RouteMonitor::finish(RouteStatus status)
{
    if (m_ended)
        return;
    m_ended = true;
    m_status = status;
}

void RouteMonitor::update(const TickObservation& tick, double dt)
{
    if (m_ended)
        return;
    m_distanceM += (tick.position - m_lastPosition).norm();
    m_lastPosition = tick.position;
    m_bestS = std::max(m_bestS, tick.s);

    for (const TickObservation::Contact& contact : tick.contacts) {
        if (std::find(m_collided.begin(), m_collided.end(), contact.id) != m_collided.end())
            continue;
        m_collided.push_back(contact.id);
        add(contact.type, tick, contact.id, contact.detail);
    }
    const bool forwardSide = tick.d <= tick.corridorLeftD + m_options.corridorMarginM;
    for (const TickObservation::Light& light : tick.lights) {
        if (!(m_lastFrontS < light.s && tick.frontS >= light.s) || light.state != synth::LightState::Red ||
            !forwardSide || std::find(m_lightsRun.begin(), m_lightsRun.end(), light.id) != m_lightsRun.end())
            continue;
        m_lightsRun.push_back(light.id);
        add(InfractionType::RedLight, tick, light.id, "light " + std::to_string(light.id));
    }
    m_lastFrontS = tick.frontS;

    if (m_bestS - m_startS >= m_routeLengthM) {
        finish(RouteStatus::Completed);
        return;
    }
    if (tick.d < tick.corridorRightD - m_options.corridorMarginM ||
        tick.d > tick.corridorLeftD + m_options.corridorMarginM) {
        add(InfractionType::RouteDeviation, tick, -1,
            tick.d > tick.corridorLeftD ? "over the centre line" : "off the road");
        finish(RouteStatus::Deviated);
        return;
    }
    m_standingS = tick.speedMps < m_options.blockedSpeedMps ? m_standingS + dt : 0.0;
    if (m_standingS >= m_options.blockedAfterS - 1e-9) {
        add(InfractionType::AgentBlocked, tick, -1,
            "no progress for " + std::to_string(static_cast<int>(m_standingS)) + " s");
        finish(RouteStatus::Blocked);
    }
}

int RouteResult::count(InfractionType type) const
{
    return static_cast<int>(
        std::count_if(infractions.begin(), infractions.end(), [type](const Infraction& i) { return i.type == type; }));
}

RouteResult routeResult(const RouteMonitor& monitor, int index, std::uint64_t worldSeed, double timeS)
{
    RouteResult r;
    r.index = index;
    r.worldSeed = worldSeed;
    r.routeLengthM = monitor.routeLengthM();
    r.timeS = timeS;
    r.distanceKm = monitor.distanceM() / 1000.0;
    r.status = monitor.status();
    r.infractions = monitor.infractions();
    r.routeCompletion = monitor.completionPercent();
    r.infractionPenalty = infractionPenalty(r.infractions);
    r.drivingScore = r.routeCompletion * r.infractionPenalty;
    return r;
}

ScoreStats scoreStats(const std::vector<double>& values)
{
    ScoreStats s;
    if (values.empty())
        return s;
    for (double v : values)
        s.mean += v;
    s.mean /= static_cast<double>(values.size());
    if (values.size() > 1) {
        double sum = 0;
        for (double v : values)
            sum += (v - s.mean) * (v - s.mean);
        s.std = std::sqrt(sum / static_cast<double>(values.size() - 1));
        s.standardError = s.std / std::sqrt(static_cast<double>(values.size()));
    }
    return s;
}

std::vector<double> routeDrivingScores(const std::vector<DrivingReport>& reports)
{
    if (reports.empty())
        return {};
    const std::size_t routes = reports.front().routes.size();
    std::vector<double> mean(routes, 0.0);
    for (const DrivingReport& r : reports) {
        if (r.routes.size() != routes)
            return {};
        for (std::size_t i = 0; i < routes; ++i) {
            if (r.routes[i].worldSeed != reports.front().routes[i].worldSeed)
                return {};
            mean[i] += r.routes[i].drivingScore;
        }
    }
    for (double& m : mean)
        m /= static_cast<double>(reports.size());
    return mean;
}

ScoreStats pairedDifference(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size() || a.empty())
        return {};
    std::vector<double> d(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        d[i] = a[i] - b[i];
    return scoreStats(d);
}

double meanDrivingScoreStandardError(const std::vector<DrivingReport>& reports)
{
    if (reports.empty())
        return 0;
    double sum = 0;
    for (const DrivingReport& r : reports)
        sum += r.drivingScore.standardError;
    return sum / static_cast<double>(reports.size());
}

DrivingReport summarise(const std::string& policy, std::vector<RouteResult> routes)
{
    DrivingReport report;
    report.policy = policy;
    report.routes = std::move(routes);
    std::vector<double> ds, rc, ip;
    for (const RouteResult& r : report.routes) {
        ds.push_back(r.drivingScore);
        rc.push_back(r.routeCompletion);
        ip.push_back(r.infractionPenalty);
        report.distanceKm += r.distanceKm;
        for (const Infraction& i : r.infractions)
            ++report.counts[static_cast<std::size_t>(i.type)];
    }
    report.drivingScore = scoreStats(ds);
    report.routeCompletion = scoreStats(rc);
    report.infractionPenalty = scoreStats(ip);
    int total = 0;
    for (std::size_t t = 0; t < report.counts.size(); ++t) {
        total += report.counts[t];
        report.perKm[t] = report.distanceKm > 0 ? report.counts[t] / report.distanceKm : 0.0;
    }
    report.infractionsPerKm = report.distanceKm > 0 ? total / report.distanceKm : 0.0;
    return report;
}

nlohmann::json reportJson(const DrivingReport& report)
{
    nlohmann::json perKm{{"total", report.infractionsPerKm}}, counts = nlohmann::json::object();
    for (InfractionType type : kInfractionTypes) {
        perKm[infractionKey(type)] = report.perKm[static_cast<std::size_t>(type)];
        counts[infractionKey(type)] = report.counts[static_cast<std::size_t>(type)];
    }
    nlohmann::json routes = nlohmann::json::array();
    for (const RouteResult& r : report.routes) {
        nlohmann::json infractions = nlohmann::json::array();
        for (const Infraction& i : r.infractions)
            infractions.push_back({{"type", infractionKey(i.type)},
                                   {"time_s", i.timeS},
                                   {"x", i.position.x},
                                   {"y", i.position.y},
                                   {"station_m", i.routeStationM},
                                   {"object_id", i.objectId},
                                   {"detail", i.detail}});
        nlohmann::json route{{"index", r.index},
                             {"seed", r.worldSeed},
                             {"status", routeStatusName(r.status)},
                             {"driving_score", r.drivingScore},
                             {"route_completion", r.routeCompletion},
                             {"infraction_penalty", r.infractionPenalty},
                             {"route_length_m", r.routeLengthM},
                             {"time_s", r.timeS},
                             {"km_driven", r.distanceKm},
                             {"infractions", infractions}};
        if (!r.replayFile.empty())
            route["replay"] = r.replayFile;
        routes.push_back(route);
    }
    nlohmann::json out{{"policy", report.policy}};
    addScoreStats(out, "driving_score", report.drivingScore);
    addScoreStats(out, "route_completion", report.routeCompletion);
    addScoreStats(out, "infraction_penalty", report.infractionPenalty);
    out["km_driven"] = report.distanceKm;
    out["infractions_per_km"] = perKm;
    out["infraction_counts"] = counts;
    out["routes"] = routes;
    return out;
}

void addScoreStats(nlohmann::json& out, const std::string& key, const ScoreStats& stats)
{
    out[key] = stats.mean;
    out[key + "_std"] = stats.std;
    out[key + "_stderr"] = stats.standardError;
}

} // namespace pitwall::drive
