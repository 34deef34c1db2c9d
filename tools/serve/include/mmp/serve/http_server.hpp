// `mmp serve`'s HTTP layer: ServeApi (serve_api.hpp) behind cpp-httplib (Debian's libcpp-httplib-dev),
// which parses HTTP; this file only binds, bounds request bodies and idle connections, refuses what
// src/request_guard.hpp refuses (a Host that is not the server's, a state-changing request from another
// origin or not in JSON: so that a web page elsewhere cannot drive the server through the user's
// browser) and copies requests and responses across.
#pragma once

#include <mmp/serve/serve_api.hpp>

#include <functional>
#include <string>

namespace mmp::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< where to listen; anything but a loopback address exposes the model to the network
  int port = 8080;                 ///< 0: any free port (on_listening says which)
};

/// Whether host is a loopback address: "localhost", "::1", "[::1]" or a 127.0.0.0/8 literal (four decimal
/// octets); not "127.0.0.1.example.org".
bool isLoopback(const std::string& host);

/*!
    ensures: listens on options.host:options.port and answers every request with api.handle() until
             SIGINT or SIGTERM (then returns); on_listening(port) once bound; log(line) for each
             request (method, path, status).  Throws mmp::Error naming host and port if it cannot bind.
!*/
void runServer(ServeApi& api, const ServerOptions& options, const std::function<void(int port)>& on_listening,
               const std::function<void(const std::string& line)>& log = {});

}  // namespace mmp::serve
