// serve_test_scene OUT.png [ROWS COLS]: writes a synthetic aerial scene (maps/synthetic_scene.hpp) for the
// teaching page's browser test, so that it runs in a fresh clone without the shared data sets.
#include <mmp/maps/synthetic_scene.hpp>

#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: %s OUT.png [ROWS COLS]\n", argv[0]);
    return 2;
  }
  mmp::SyntheticSceneParams p;
  p.rows = argc == 4 ? std::stoi(argv[2]) : 384;
  p.cols = argc == 4 ? std::stoi(argv[3]) : 512;
  p.seed = 3;
  if (!cv::imwrite(argv[1], mmp::makeSyntheticScene(p).image)) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
