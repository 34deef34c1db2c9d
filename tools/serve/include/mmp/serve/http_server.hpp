// `mmp serve`'s HTTP layer: ServeApi (serve_api.hpp) behind cpp-httplib (Debian's libcpp-httplib-dev),
// which parses HTTP; this file only binds, bounds request bodies, checks the Host header of a loopback
// server (so that a web page elsewhere cannot reach it through DNS rebinding) and copies requests and
// responses across.
#pragma once

#include <mmp/serve/serve_api.hpp>

#include <functional>
#include <string>

namespace mmp::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< where to listen; anything but a loopback address exposes the model to the network
  int port = 8080;                 ///< 0: any free port (on_listening says which)
};

/// Whether host is a loopback address ("127.0.0.1", "::1", "localhost", any 127.x.y.z).
bool isLoopback(const std::string& host);

/*!
    ensures: listens on options.host:options.port and answers every request with api.handle() until
             SIGINT or SIGTERM (then returns); on_listening(port) once bound; log(line) for each
             request (method, path, status).  Throws mmp::Error naming host and port if it cannot bind.
!*/
void runServer(ServeApi& api, const ServerOptions& options, const std::function<void(int port)>& on_listening,
               const std::function<void(const std::string& line)>& log = {});

}  // namespace mmp::serve
