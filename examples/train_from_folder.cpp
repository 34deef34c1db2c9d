// train_from_folder: learning a cost model from demonstrated paths with the training pipeline, all
// from C++ (plain settings structs, no YAML), then saving it and printing the training report.
//
//   train_from_folder FOLDER MODEL.mmp   every image in FOLDER (png, jpg, tif) with a CSV of paths
//                                        beside it (<stem>.csv: path,x,y in pixels, or
//                                        path,world_x,world_y on a georeferenced image)
//   train_from_folder                    no data: "follow the road" on two generated scenes (30
//                                        iterations), writes model.mmp and scene.png, a third scene
//                                        training never saw, for the other two examples
//
// Links mmp::maps_training.  Build: examples/CMakeLists.txt; run: examples/run.sh.
#include <mmp/core/error.hpp>
#include <mmp/maps/path_files.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/maps/training/pipeline.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <limits>
#include <string>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 1 && argc != 3) {
    std::fprintf(stderr, "usage: %s [FOLDER MODEL.mmp]\n", argv[0]);
    return 2;
  }
  try {
    mmp::PipelineSettings settings;  // documented defaults (settings.hpp)
    std::string model_file = "model.mmp";
    if (argc == 1) {
      // Generated scenes have labels: the behaviour's class costs plan the demonstrations on them.
      const double impassable = std::numeric_limits<double>::infinity();
      settings.behaviour = mmp::Behaviour::make(
          "follow_road", settings.classes,
          {{"Road", 1}, {"Land", 6}, {"Vegetation", 8}, {"Building", impassable}, {"Water", impassable}}, "Road");
      settings.train = {mmp::RegionSpec::scene(1), mmp::RegionSpec::scene(2)};
      settings.learner.batch.stop.max_iterations = 30;
      mmp::SyntheticSceneParams unseen;
      unseen.seed = 9;
      mmp::writeImage("scene.png", mmp::makeSyntheticScene(unseen).image);
    } else {
      // Real images: the demonstrations are the paths in the CSV files; no labels needed.
      settings.behaviour.name = "demonstrated";
      model_file = argv[2];
      std::vector<fs::path> images;
      for (const fs::directory_entry& entry : fs::directory_iterator(argv[1])) {
        const std::string ext = entry.path().extension().string();
        const bool image = ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".tif" || ext == ".tiff";
        if (image && fs::exists(fs::path(entry.path()).replace_extension(".csv"))) images.push_back(entry.path());
      }
      std::sort(images.begin(), images.end());  // the same order, and so the same model, on every run
      for (const fs::path& image : images) {
        mmp::RegionSpec region;
        region.name = image.stem().string();
        region.where = region.image = image.string();
        region.demonstrations_file = fs::path(image).replace_extension(".csv").string();
        region.demonstrations = mmp::readPathCsv(region.demonstrations_file);  // throws naming file and line
        settings.train.push_back(region);
      }
      if (settings.train.empty()) {
        throw mmp::DataError(std::string(argv[1]) + ": no image (png, jpg, tif) with a <stem>.csv of paths beside it");
      }
    }

    // The library prints nothing; progress comes through a callback.
    const mmp::StageCallback progress = [](const std::string& stage, long done, long total, const std::string& detail) {
      if (done == total) std::printf("  %s: %ld/%ld %s\n", stage.c_str(), done, total, detail.c_str());
    };
    const mmp::TrainingData data = mmp::loadTrainingData(settings, progress);  // features, demonstrations
    const mmp::TrainedCostModel trained = mmp::train(data, settings, progress);
    trained.model.save(model_file);  // atomically

    const mmp::TrainingReport& report = trained.report;
    std::printf("training images: %zu, demonstrations: %d; %s learner, %ld %ss in %.1f s (%s)\n", data.regions.size(),
                report.examples, mmp::costLearnerName(settings.learner).c_str(), report.passes,
                report.pass_name.c_str(), report.train_seconds, report.info.c_str());
    std::printf("objective %.4g, mean training loss %.4g per cell, bias %.4g, costs %.4g .. %.4g on the training images\n",
                report.objective, report.training_loss, report.bias, report.cost_range[0], report.cost_range[1]);
    std::printf("wrote %s%s\n", model_file.c_str(), argc == 1 ? " and scene.png (an unseen scene)" : "");
  } catch (const mmp::Error& e) {  // a bad image, CSV or setting: the message names it
    std::fprintf(stderr, "train_from_folder: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {  // anything else (out of memory, an unreadable folder)
    std::fprintf(stderr, "train_from_folder: unexpected error: %s\n", e.what());
    return 1;
  }
  return 0;
}
