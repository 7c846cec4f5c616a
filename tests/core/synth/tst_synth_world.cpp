// The synthetic world: determinism, the expert's driving, and agreement between the rendered labels.
#include "core/synth/dataset.h"
#include "core/synth/render.h"
#include "core/synth/world.h"

#include <QtTest>

#include <chrono>
#include <set>

using namespace pitwall::synth;

namespace {

SynthOptions smallOptions(std::uint64_t seed)
{
    SynthOptions o;
    o.seed = seed;
    o.frames = 4;
    o.episodeFrames = 4;
    return o;
}

bool sameFrame(const Frame& a, const Frame& b)
{
    return a.rgb.pixels == b.rgb.pixels && a.semantic.pixels == b.semantic.pixels && a.depth.pixels == b.depth.pixels &&
           a.bevSemantic.pixels == b.bevSemantic.pixels && a.lidarCounts.pixels == b.lidarCounts.pixels &&
           frameMetaJson(a.labels, {}, 0, 0, 0) == frameMetaJson(b.labels, {}, 0, 0, 0);
}

bool isObjectClass(std::uint8_t c)
{
    const auto cls = static_cast<BevClass>(c);
    return cls == BevClass::Vehicle || cls == BevClass::Walker || cls == BevClass::Obstacle ||
           cls == BevClass::ParkingVehicle || cls == BevClass::SpecialVehicle;
}

BevClass expectedBevClass(BoxClass c)
{
    switch (c) {
    case BoxClass::Walker:
        return BevClass::Walker;
    case BoxClass::Obstacle:
        return BevClass::Obstacle;
    case BoxClass::Parking:
        return BevClass::ParkingVehicle;
    case BoxClass::Special:
        return BevClass::SpecialVehicle;
    default:
        return BevClass::Vehicle;
    }
}

// Frames spread over several episodes and moments, for the label checks.
std::vector<Frame> sampleFrames()
{
    std::vector<Frame> frames;
    for (int episode = 0; episode < 6; ++episode) {
        SynthOptions o = smallOptions(7);
        o.frameIntervalS = 2.0;
        EpisodeGenerator generator(o, episode);
        for (int k = 0; k < 6; ++k)
            frames.push_back(generator.next());
    }
    return frames;
}

} // namespace

class TestSynthWorld : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameSeedGivesIdenticalFrames();
    void differentSeedGivesDifferentFrames();
    void expertStaysOnRoadWithoutCollisions_data();
    void expertStaysOnRoadWithoutCollisions();
    void expertStopsBeforeRedLights();
    void perspectiveLabelsAgree();
    void bevLabelsAgree();
    void cipoLevels();
    void waypointsMoveForwardOnStraightRoad();
    void lidarFeatureIsClippedHistogram();
    void smallDatasetIsComplete();
};

void TestSynthWorld::sameSeedGivesIdenticalFrames()
{
    // Same seed, generated twice (and an episode regenerated alone) must give the same bytes, or cached
    // datasets and reported results could not be reproduced.
    EpisodeGenerator a(smallOptions(3), 1), b(smallOptions(3), 1);
    for (int k = 0; k < 4; ++k)
        QVERIFY2(sameFrame(a.next(), b.next()), qPrintable(QString("frame %1 differs").arg(k)));
}

void TestSynthWorld::differentSeedGivesDifferentFrames()
{
    EpisodeGenerator a(smallOptions(3), 0), b(smallOptions(4), 0), c(smallOptions(3), 1);
    const Frame fa = a.next(), fb = b.next(), fc = c.next();
    QVERIFY(fa.rgb.pixels != fb.rgb.pixels);
    QVERIFY(fa.rgb.pixels != fc.rgb.pixels); // episodes of one seed are different roads too
}

void TestSynthWorld::expertStaysOnRoadWithoutCollisions_data()
{
    QTest::addColumn<int>("seed");
    for (int seed : {1, 2, 3, 5, 8, 13, 21, 34, 55, 89})
        QTest::newRow(qPrintable(QString("seed %1").arg(seed))) << seed;
}

void TestSynthWorld::expertStaysOnRoadWithoutCollisions()
{
    QFETCH(int, seed);
    World world = World::create(static_cast<std::uint64_t>(seed));
    double travelled = 0;
    for (int step = 0; step < 800; ++step) { // 40 s
        const Vec2 before = world.ego().pose.position;
        world.step(0.05);
        travelled += (world.ego().pose.position - before).norm();
        const int hit = world.egoCollision();
        QVERIFY2(hit < 0, qPrintable(QString("step %1: ego overlaps actor %2").arg(step).arg(hit)));
        QVERIFY2(world.egoInForwardLanes(),
                 qPrintable(QString("step %1: ego left its lanes (d = %2 m)").arg(step).arg(world.ego().frenet.d)));
        QVERIFY(world.ego().speed <= world.speedLimit() + 0.5);
    }
    QVERIFY2(travelled > 60, qPrintable(QString("the expert barely moved: %1 m").arg(travelled)));
}

void TestSynthWorld::expertStopsBeforeRedLights()
{
    // Whenever the ego stands still because of a red light, its front bumper is before the stop line.
    int stops = 0;
    for (int seed = 0; seed < 12; ++seed) {
        World world = World::create(static_cast<std::uint64_t>(seed));
        for (int step = 0; step < 800; ++step) {
            world.step(0.05);
            if (world.expert().reason != BrakeReason::RedLight || world.ego().speed > 0.05)
                continue;
            const TrafficLight* light = world.nextLight(world.ego().frenet.s - 5, 40);
            QVERIFY(light);
            QVERIFY(light->state != LightState::Green || light->timeInStateS < 0.1);
            QVERIFY(world.ego().frenet.s + world.ego().length / 2 <= light->s + 0.01);
            ++stops;
        }
    }
    QVERIFY2(stops > 0, "no seed stopped at a red light: the check above tested nothing");
}

void TestSynthWorld::perspectiveLabelsAgree()
{
    // A pixel labelled VEHICLE (or PEDESTRIAN) shows something standing on the road: it is nearer than the
    // ground the same pixel would see behind it.
    const CameraConfig camera;
    const double focal = camera.focalPx(), pitch = camera.pitchDownDeg * 3.14159265358979 / 180;
    int checked = 0;
    for (const Frame& f : sampleFrames()) {
        for (int y = 0; y < camera.height; ++y) {
            const double down = (y + 0.5 - camera.centreY()) / focal;
            const double descent = std::sin(pitch) + std::cos(pitch) * down; // metres down per metre of depth
            if (descent <= 0.01)
                continue;
            const double groundDepth = camera.heightM / descent;
            for (int x = 0; x < camera.width; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * camera.width + x;
                const auto cls = static_cast<SemanticClass>(f.semantic.pixels[i]);
                if (cls == SemanticClass::Road || cls == SemanticClass::RoadLine) {
                    QVERIFY(std::abs(f.depth.pixels[i] - groundDepth) < 0.02 * groundDepth + 0.05);
                    continue;
                }
                if (cls != SemanticClass::Vehicle && cls != SemanticClass::Pedestrian)
                    continue;
                QVERIFY2(f.depth.pixels[i] < groundDepth + 1e-3,
                         qPrintable(QString("pixel (%1, %2): object depth %3 m behind the ground at %4 m")
                                        .arg(x)
                                        .arg(y)
                                        .arg(f.depth.pixels[i])
                                        .arg(groundDepth)));
                ++checked;
            }
        }
        // Every image box is inside the image and covers its visible pixels.
        for (const ObjectLabel& o : f.labels.objects) {
            if (!o.image)
                continue;
            QVERIFY(o.image->x >= 0 && o.image->y >= 0 && o.image->x + o.image->width <= camera.width &&
                    o.image->y + o.image->height <= camera.height);
            QVERIFY(o.image->visiblePixels >= kMinVisiblePixels);
            QVERIFY(o.image->visiblePixels <= o.image->width * o.image->height);
        }
    }
    QVERIFY2(checked > 100, "too few vehicle pixels to check");
}

void TestSynthWorld::bevLabelsAgree()
{
    const BevConfig bev;
    int boxes = 0, ownClass = 0;
    for (const Frame& f : sampleFrames()) {
        for (const ObjectLabel& o : f.labels.objects) {
            if (!o.bev)
                continue;
            const int col = static_cast<int>(std::floor((o.bev->x - bev.xMinM) * bev.pixelsPerMeter));
            const int row = static_cast<int>(std::floor((bev.yMaxM() - o.bev->y) * bev.pixelsPerMeter));
            QVERIFY(col >= 0 && col < bev.width && row >= 0 && row < bev.height);
            const std::uint8_t cell = f.bevSemantic.pixels[static_cast<std::size_t>(row) * bev.width + col];
            if (o.boxClass == BoxClass::TrafficLight) {
                QVERIFY2(cell == static_cast<std::uint8_t>(BevClass::TrafficGreen) ||
                             cell == static_cast<std::uint8_t>(BevClass::TrafficRedNormal) || isObjectClass(cell),
                         qPrintable(QString("light %1 centre on class %2").arg(o.id).arg(cell)));
                continue;
            }
            QVERIFY2(
                isObjectClass(cell),
                qPrintable(
                    QString("object %1 (class %2) centre on BEV class %3").arg(o.id).arg(int(o.boxClass)).arg(cell)));
            ++boxes;
            ownClass += cell == static_cast<std::uint8_t>(expectedBevClass(o.boxClass));
        }
    }
    QVERIFY2(boxes > 20, "too few BEV boxes to check");
    QVERIFY2(ownClass >= boxes * 95 / 100, qPrintable(QString("%1 of %2 on their own class").arg(ownClass).arg(boxes)));
}

void TestSynthWorld::cipoLevels()
{
    int closest = 0;
    for (const Frame& f : sampleFrames()) {
        int level1 = 0;
        for (const ObjectLabel& o : f.labels.objects) {
            QVERIFY(static_cast<int>(o.cipo) >= 1 && static_cast<int>(o.cipo) <= 4);
            if (o.cipo != CipoLevel::Closest)
                continue;
            ++level1;
            QVERIFY(o.boxClass != BoxClass::TrafficLight);
            QVERIFY2(o.relativeLane && std::abs(*o.relativeLane) <= 1, "CIPO 1 is not in or next to the ego lane");
            if (o.bev) {
                QVERIFY2(o.bev->x > 2.0, qPrintable(QString("CIPO 1 at x = %1 m is not ahead").arg(o.bev->x)));
                QVERIFY(std::abs(o.bev->y) < 5.5);
            }
        }
        QVERIFY2(level1 <= 1, "more than one CIPO-1 object in a frame");
        closest += level1;
    }
    QVERIFY2(closest > 0, "no frame had a CIPO-1 object: the checks above tested nothing");
}

void TestSynthWorld::waypointsMoveForwardOnStraightRoad()
{
    WorldOptions options;
    options.roadShape = RoadShape::Straight;
    options.trafficDensity = 0;
    options.pedestrianDensity = 0;
    World world = World::create(11, options);
    int moving = 0;
    for (int k = 0; k < 60; ++k) {
        const auto points = expertWaypoints(world);
        // No lane change now or within the 2 s the waypoints cover: they must stay in the lane.
        const double s = world.ego().frenet.s;
        const bool keepsLane = !world.expert().plan.changing(s) &&
                               world.routeLane(s + 80) == world.expert().targetLane &&
                               world.routeLane(s) == world.expert().targetLane;
        double previous = 0;
        for (const Vec2& p : points) {
            QVERIFY2(p.x >= previous - 1e-6, "a waypoint lies behind the previous one");
            previous = p.x;
            if (!keepsLane)
                continue;
            const double offset = world.road().project(world.ego().pose.toWorld(p)).d -
                                  world.road().laneCentre(world.expert().targetLane);
            QVERIFY2(std::abs(offset) < 0.3, qPrintable(QString("waypoint %1 m off the lane centre").arg(offset)));
        }
        if (world.ego().speed > 1) {
            ++moving;
            QVERIFY(points.back().x > 0.5 * world.ego().speed);
        }
        for (int i = 0; i < 10; ++i)
            world.step(0.05);
    }
    QVERIFY(moving > 10);
}

void TestSynthWorld::lidarFeatureIsClippedHistogram()
{
    EpisodeGenerator generator(smallOptions(2), 0);
    const Frame f = generator.next();
    const LidarConfig lidar;
    int occupied = 0;
    for (std::size_t i = 0; i < f.lidar.pixels.size(); ++i) {
        const float expected = std::min<float>(f.lidarCounts.pixels[i], lidar.histogramMaxPerCell) /
                               static_cast<float>(lidar.histogramMaxPerCell);
        QCOMPARE(f.lidar.pixels[i], expected);
        occupied += f.lidarCounts.pixels[i] > 0;
    }
    QVERIFY(occupied > 200);
}

// Generation speed is a benchmark, not a test (a busy or sanitizer-built machine is slow, not wrong): the
// figure is printed here, and `time pitwall data synth --frames 200 --out DIR` measures it whole.
void TestSynthWorld::smallDatasetIsComplete()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SynthOptions o;
    o.frames = 20;
    o.episodeFrames = 10;
    const auto start = std::chrono::steady_clock::now();
    const GenerationStats stats = writeSynthDataset(dir.path().toStdString(), o);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY(stats.complete);
    QCOMPARE(stats.frames, 20);
    qInfo("20 frames at %dx%d in %.3f s (%.1f frames/s)", o.sensors.camera.width, o.sensors.camera.height, seconds,
          20 / seconds);
}

QTEST_GUILESS_MAIN(TestSynthWorld)
#include "tst_synth_world.moc"
