// ServeApi behind cpp-httplib (http_server.hpp).
#include <mmp/serve/http_server.hpp>

#include <mmp/core/error.hpp>

#include <httplib.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <thread>

namespace mmp::serve {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

}  // namespace

bool isLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

void runServer(ServeApi& api, const ServerOptions& options, const std::function<void(int)>& on_listening,
               const std::function<void(const std::string&)>& log) {
  httplib::Server server;
  server.set_payload_max_length(api.settings().max_body_bytes);  // longer bodies: 413 before they are read
  server.set_read_timeout(10, 0);
  server.set_write_timeout(30, 0);
  server.set_default_headers({{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"},
                              {"Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'"}});
  const bool loopback = isLoopback(options.host);
  int port = 0;
  const auto answer = [&](const httplib::Request& req, httplib::Response& res) {
    Response r;
    // A loopback server answers only requests addressed to a loopback name: a page elsewhere that
    // rebinds its own host name to 127.0.0.1 sends its own name as Host.
    const std::string host = req.get_header_value("Host");
    const std::string name = host.substr(0, host.rfind(':') == std::string::npos || host.back() == ']' ? host.size() : host.rfind(':'));
    if (loopback && !isLoopback(name)) {
      r.status = 403;
      r.body = errorBody("Host '" + host.substr(0, 80) + "' refused: this server answers only requests to 127.0.0.1 or localhost");
    } else {
      Request request{req.method, req.path, {}, req.body};
      for (const auto& [key, value] : req.params) request.query.emplace(key, value);
      r = api.handle(request);
    }
    res.status = r.status;
    for (const auto& [key, value] : r.headers) res.set_header(key, value);
    if (!r.download.empty()) res.set_header("Content-Disposition", "attachment; filename=\"" + r.download + "\"");
    res.set_content(std::move(r.body), r.type);
    if (log) log(req.method + " " + req.path + " " + std::to_string(r.status));
  };
  for (const char* pattern : {"/.*"}) {
    server.Get(pattern, answer);
    server.Post(pattern, answer);
    server.Put(pattern, answer);
    server.Delete(pattern, answer);
    server.Patch(pattern, answer);
    server.Options(pattern, answer);
  }
  const std::size_t max_body = api.settings().max_body_bytes;
  server.set_error_handler([max_body](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {  // httplib's own refusals (413 too long, 400 malformed): a JSON message too
      std::string why = "the HTTP layer refused the request (status " + std::to_string(res.status) + ")";
      if (res.status == 413) why += ": the body is longer than the " + std::to_string(max_body) + " bytes allowed";
      if (res.status == 400) why += ": malformed HTTP (a POST needs a Content-Length: send a body, even {})";
      if (res.status == 414) why += ": the URL is too long";
      res.set_content(errorBody(why), "application/json");
    }
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(errorBody("the server failed"), "application/json");
  });
  // SIGINT and SIGTERM set a flag (whichever thread they land on: libraries such as OpenBLAS start threads
  // of their own before this), which a watcher thread turns into server.stop().
  struct sigaction stop_action {}, old_int {}, old_term {};
  stop_action.sa_handler = [](int) { stop_requested = 1; };
  sigemptyset(&stop_action.sa_mask);
  stop_requested = 0;
  if (options.port == 0) {
    port = server.bind_to_any_port(options.host);
  } else if (server.bind_to_port(options.host, options.port)) {
    port = options.port;
  }
  if (port <= 0) {
    throw Error("mmp serve: cannot listen on " + options.host + ":" + std::to_string(options.port) +
                " (in use, or not an address of this machine): give another --port or --host");
  }
  sigaction(SIGINT, &stop_action, &old_int);
  sigaction(SIGTERM, &stop_action, &old_term);
  std::atomic<bool> done{false};
  std::thread watcher([&server, &done] {
    while (!done && !stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server.stop();
  });
  on_listening(port);
  server.listen_after_bind();
  done = true;
  watcher.join();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
}

}  // namespace mmp::serve
