#pragma once
// Dataset readers of the data pipeline: they turn a folder into an index of samples (image file + boxes) and a
// list of problems (which file, why). Labels are read once, here; images are decoded later by the loader, which
// reports the images it cannot read the same way. Nothing here throws for one bad file; a dataset left with no
// usable sample is an InputError. No torch.

#include "core/engine/data/augment.h"

#include <string>
#include <vector>

namespace pitwall::engine::data {

// One problem with one file: kept, counted and shown to the user instead of stopping the run.
struct DataProblem {
    std::string file;
    std::string reason;
};

enum class BoxUnits {
    Pixels,     // corners in the image's pixels
    Normalized, // corners as fractions of the image's width and height (YOLO); scaled once the size is known
};

struct SampleRecord {
    std::string imagePath;
    std::vector<BoxLabel> boxes; // may be empty (a frame with nothing labelled); may reach outside the image
    BoxUnits units = BoxUnits::Pixels;
};

enum class DatasetKind { ImageFolder, Yolo, OpenLaneCipo, Synth };
const char* datasetKindName(DatasetKind kind);

struct DatasetIndex {
    DatasetKind kind = DatasetKind::ImageFolder;
    std::string root;
    std::vector<SampleRecord> samples;   // in a stable order (sorted paths)
    std::vector<DataProblem> problems;   // files left out or partly read while indexing
    std::vector<std::string> classNames; // index = classId; empty for unlabelled folders
};

// Every *.jpg / *.jpeg (any case) under `dir`, recursively, sorted; no labels.
DatasetIndex indexImageFolder(const std::string& dir);

// The class ids a YOLO label may use: 0..kMaxYoloClasses - 1 (YOLO folders carry no class list, and the
// evaluator and the models size per-class tables by the highest id seen).
constexpr int kMaxYoloClasses = 1024;

// YOLO layout: images under dir/images[/split], labels dir/labels[/split]/<same relative path>.txt with one
// "cls xc yc w h" line per box (normalised). A missing label file is an image with no boxes; a line with bad
// numbers or a class id of kMaxYoloClasses or more is reported (file:line) and skipped.
DatasetIndex indexYolo(const std::string& dir, const std::string& split = {});

// OpenLane CIPO: labels root/cipo/<split>/segment-*/<ts>.jpg.json, images root/images/<split>/segment-*/<ts>.jpg.
// JSON {"results": [{x, y, width, height, id: "1".."4", trackid, type}]}; the "result" spelling is accepted and
// `attribute` stands in for a missing id, as AutoSpeed's converter reads them. Class = CIPO level, with level 4
// mapped to 3 (AutoSpeed's classes: 0 NA, 1..3 CIPO-1..3). `split` empty means every split found.
DatasetIndex indexOpenLaneCipo(const std::string& root, const std::string& split = {});

// Pitwall's synthetic world (core/synth/dataset.h): rgb/NNNNNN.jpg with boxes from meta/NNNNNN.json, class
// = CIPO level with 4 mapped to 3 as for OpenLane.
DatasetIndex indexSynth(const std::string& dir);

// The splits of a dataset folder, sorted: the folders under images/ (YOLO) or cipo/ (OpenLane CIPO); none for
// a synthetic dataset or an image folder.
std::vector<std::string> datasetSplits(const std::string& dir);

// Picks the reader from the folder's layout: dataset.json -> synth, cipo/ -> OpenLane, images/ + labels/ -> YOLO,
// else an image folder. Throws InputError when the folder is missing, `split` is not one of datasetSplits() (the
// message names those that exist), or the folder has no usable sample.
DatasetIndex indexDataset(const std::string& dir, const std::string& split = {});

// Throws InputError (naming the folder and the first problems) when `index` has no sample.
void requireSamples(const DatasetIndex& index);

} // namespace pitwall::engine::data
