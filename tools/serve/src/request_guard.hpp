// The checks a request to `mmp serve` passes before the API reads it, so that a web page elsewhere
// cannot drive the teaching page through the user's browser (docs/serve.md, "Safety rules"):
//
//   Host            a loopback server answers only an exact loopback name (DNS rebinding sends the
//                   attacker's own name); a server on another address answers IP literals, loopback
//                   names and the name it was told to listen on
//   Origin,         a state-changing request (any method but GET, HEAD, OPTIONS) coming from another
//   Sec-Fetch-Site  origin is refused: a foreign page's form or no-cors fetch carries its own Origin
//   Content-Type    a state-changing request must say application/json, which a foreign page cannot
//                   send without a CORS preflight (which this server never grants)
//   JSON nesting    a body nested deeper than kMaxJsonDepth is refused before it is parsed: the
//                   parsed value's copies and dumps recurse, and 500,000 levels overflow the stack
//
// Each check returns the refusal (status and message, naming the header and its value and what would
// be accepted) or nothing.  http_server.cpp runs checkRequest on every request; parseBody runs
// checkJsonNesting, so that the in-process API (tests, the fuzz target) is bounded too.
//
//   const auto refused = checkRequest({"POST", "127.0.0.1:8080", "http://evil.example", {}, "application/json"}, "127.0.0.1");
//   // refused->status == 403, refused->message names Origin 'http://evil.example'
#pragma once

#include <optional>
#include <string>

namespace mmp::serve {

/// Arrays and objects a request body may nest (the page's deepest body, a teach, nests 3).
constexpr int kMaxJsonDepth = 16;

/// Why a request is refused: the HTTP status and the message of its {"error": ...} body.
struct Refusal {
  int status = 403;
  std::string message;
};

/// What the checks read of a request; a header the request does not have is nullopt.
struct GuardedRequest {
  std::string method;
  std::optional<std::string> host, origin, sec_fetch_site, content_type;
};

/// Whether a listening address names the loopback: "localhost", "::1", "[::1]" or a 127.0.0.0/8 literal
/// (four decimal octets, no leading zeros).  No port.
bool isLoopbackAddress(const std::string& address);

/// Whether a Host header names the loopback: localhost, [::1] or a 127.0.0.0/8 literal, each with an
/// optional :port (1-65535).  "127.0.0.1.evil.example" and "127.evil.example" are not.
bool isLoopbackHost(const std::string& host);

/// Whether the method can change the server's state (all but GET, HEAD and OPTIONS).
bool changesState(const std::string& method);

/// The Host rule for a server listening on bind_address (the --host it was given).
std::optional<Refusal> checkHost(const std::optional<std::string>& host, const std::string& bind_address);

/// A state-changing request whose Origin is not "http://" + its Host, or whose Sec-Fetch-Site is not
/// same-origin or none: 403.  Absent headers pass (curl and other non-browser clients send neither).
std::optional<Refusal> checkSameOrigin(const GuardedRequest& request);

/// A state-changing request whose Content-Type is not application/json (parameters such as
/// "; charset=utf-8" allowed): 415.
std::optional<Refusal> checkContentType(const GuardedRequest& request);

/// checkHost, then checkSameOrigin, then checkContentType: the first refusal.
std::optional<Refusal> checkRequest(const GuardedRequest& request, const std::string& bind_address);

/// A body that nests arrays and objects deeper than max_depth: 400 naming the limit.  Scans the raw
/// text (brackets inside strings, escaped quotes included, do not count), so it costs one pass and
/// no stack.
std::optional<Refusal> checkJsonNesting(const std::string& body, int max_depth = kMaxJsonDepth);

}  // namespace mmp::serve
