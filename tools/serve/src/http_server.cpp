// ServeApi behind cpp-httplib (http_server.hpp).
#include <mmp/serve/http_server.hpp>

#include "request_guard.hpp"

#include <mmp/core/error.hpp>

#include <httplib.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <optional>
#include <thread>

namespace mmp::serve {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

// cpp-httplib gives each connection a worker until it closes, and an idle keep-alive connection keeps
// its worker until the keep-alive timeout: with its defaults (8 workers on this 2-core machine, 5 s),
// 40 idle connections held every answer back about 24 s.  64 workers leave room beside a browser's 6
// connections and many idle ones; 2 s of idleness closes a connection (the page's requests come in
// bursts, and a new connection on the loopback costs well under a millisecond).  docs/serve.md says so.
constexpr int kWorkers = 64;
constexpr int kKeepAliveSeconds = 2;
constexpr int kKeepAliveRequests = 100;  ///< requests one connection may carry (a zoom asks for dozens of pictures)
constexpr int kReadTimeoutSeconds = 5;   ///< each read of a request's headers or body
constexpr int kWriteTimeoutSeconds = 30; ///< each write of an answer (a large download to a slow reader)

std::optional<std::string> headerOf(const httplib::Request& req, const char* name) {
  if (!req.has_header(name)) return std::nullopt;
  return req.get_header_value(name);
}

}  // namespace

bool isLoopback(const std::string& host) { return isLoopbackAddress(host); }

void runServer(ServeApi& api, const ServerOptions& options, const std::function<void(int)>& on_listening,
               const std::function<void(const std::string&)>& log) {
  httplib::Server server;
  server.set_payload_max_length(api.settings().max_body_bytes);  // longer bodies: 413 before they are read
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  server.set_keep_alive_timeout(kKeepAliveSeconds);
  server.set_keep_alive_max_count(kKeepAliveRequests);
  server.set_read_timeout(kReadTimeoutSeconds, 0);
  server.set_write_timeout(kWriteTimeoutSeconds, 0);
  server.set_default_headers({{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"},
                              {"Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'"}});
  int port = 0;
  const auto answer = [&](const httplib::Request& req, httplib::Response& res) {
    Response r;
    const GuardedRequest guarded{req.method, headerOf(req, "Host"), headerOf(req, "Origin"), headerOf(req, "Sec-Fetch-Site"),
                                 headerOf(req, "Content-Type")};
    if (const std::optional<Refusal> refused = checkRequest(guarded, options.host)) {
      r.status = refused->status;
      r.body = errorBody(refused->message);
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
