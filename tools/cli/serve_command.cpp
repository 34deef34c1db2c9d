// `mmp serve [--model M] --images FILES|DIR [--host 127.0.0.1] [--port 8080] [--out adapted.mmp]`: the local
// teaching page (tools/serve, docs/serve.md) -- look at a model's cost map over the imagery, plan, draw
// demonstrations and teach the model online, save it and download its maps.  The command is a thin shell:
// settings in, mmp::serve::ServeApi behind runServer, until Ctrl-C.
#include "commands.hpp"
#include "provenance.hpp"
#include "setting_flags.hpp"

#include <mmp/core/error.hpp>
#include <mmp/serve/http_server.hpp>
#include <mmp/serve/serve_api.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace mmp::tools {
namespace {

struct ServeOptions {
  serve::ServeSettings settings;
  PipelineSettings flags;  ///< the setting flags' (adapt.*, serve.*): into settings.adaptation and its bounds
  std::vector<std::string> images;
  serve::ServerOptions server;
  bool quiet = false;
};

// The shipped model a checkout or an installed mmp has (models/ here, else <exe>/../share/mmp/models).
std::string defaultModel() {
  const std::string here = "models/follow_road.mmp";
  std::error_code error;
  if (std::filesystem::is_regular_file(here, error)) return here;
  const std::filesystem::path installed =
      (std::filesystem::path(programFolder()) / ".." / "share/mmp/models/follow_road.mmp").lexically_normal();
  if (!programFolder().empty() && std::filesystem::is_regular_file(installed, error)) return installed.string();
  throw InvalidArgument("mmp serve: no --model given and no models/follow_road.mmp here or in " + installed.string() +
                        ": give --model FILE");
}

void runServe(ServeOptions& o) {
  o.settings.adaptation = o.flags.adapt;
  static_cast<PageLimits&>(o.settings) = o.flags.page;
  if (o.settings.model.empty()) o.settings.model = defaultModel();
  o.settings.images = serve::listImages(o.images);
  o.settings.provenance = provenance();
  serve::ServeApi api(o.settings);
  if (!serve::isLoopback(o.server.host)) {
    std::fprintf(stderr,
                 "\n*** WARNING: mmp serve listens on %s, not on 127.0.0.1: anyone who can reach this machine on port %d can see "
                 "the images, teach the model and save it to %s. There is no password. Open it by this machine's IP address or "
                 "by the --host name: other names are refused (DNS rebinding). ***\n\n",
                 o.server.host.c_str(), o.server.port, o.settings.out.empty() ? "(saving is off)" : o.settings.out.c_str());
  }
  std::printf("mmp serve: model %s, %zu image(s); Save writes %s\n", o.settings.model.c_str(), o.settings.images.size(),
              o.settings.out.empty() ? "nothing (no --out)" : o.settings.out.c_str());
  serve::runServer(
      api, o.server,
      [&](int port) {
        const std::string host = o.server.host.find(':') != std::string::npos ? "[" + o.server.host + "]" : o.server.host;
        std::printf("mmp serve: open http://%s:%d/ in a browser (Ctrl-C stops)\n", host.c_str(), port);
        std::fflush(stdout);
      },
      [&](const std::string& line) {
        if (!o.quiet) std::fprintf(stderr, "%s\n", line.c_str());
      });
  std::printf("mmp serve: stopped\n");
}

}  // namespace

void addServeCommand(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  o->settings.out = "adapted.mmp";
  CLI::App* cmd = app.add_subcommand("serve", "A local page to look at a model's cost maps over images, plan, and teach "
                                              "the model by drawing paths (docs/serve.md)");
  cmd->add_option("--model", o->settings.model, "the model to show and teach, never modified (default: models/follow_road.mmp)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--images", o->images, "image files, or folders of them (.png .jpg .tif), each served under an id")
      ->required();
  cmd->add_option("--host", o->server.host, "the address to listen on; anything but 127.0.0.1 exposes the page to the network")
      ->capture_default_str();
  cmd->add_option("--port", o->server.port, "the port (0: any free one)")->capture_default_str()->check(CLI::Range(0, 65535));
  cmd->add_option("--out", o->settings.out, "where the page's Save writes the adapted model (atomically); '' turns saving off")
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "do not log each request on stderr");
  declareOtherFlags(*cmd, {"--model", "--images", "--host", "--port", "--out", "--quiet"});
  // The settings, each a row of the settings table (its range and message).
  PipelineSettings& s = o->flags;
  addSettingOption(*cmd, "--max-pixels", "serve.max_image_pixels", s, "refuse images larger than this");
  addSettingOption(*cmd, "--lambda", "adapt.lambda", s, "linear models: the pull toward the parent (larger: closer)");
  addSettingOption(*cmd, "--learch-rounds", "adapt.learch_rounds", s, "LEARCH models: trees added per teaching");
  addSettingOption(*cmd, "--threads", "adapt.threads", s, "oracle calls at once when teaching (0: every core)");
  cmd->footer("Examples:\n  mmp serve --model models/follow_road.mmp --images site.tif\n"
              "  mmp serve --model models/amphibious.mmp --images parts/ --port 8081 --out site.mmp");
  cmd->callback([o] { runServe(*o); });
}

}  // namespace mmp::tools
