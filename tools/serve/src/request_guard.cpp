// The checks a request to `mmp serve` passes before the API reads it (request_guard.hpp).
#include "request_guard.hpp"

#include <arpa/inet.h>

#include <algorithm>

namespace mmp::serve {
namespace {

constexpr std::size_t kNone = std::string::npos;

std::string asciiLower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

bool allDigits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A header value as a message quotes it: at most 80 characters (the value is the sender's).
std::string quoted(const std::string& value) { return "'" + value.substr(0, 80) + (value.size() > 80 ? "...'" : "'"); }

// Four decimal octets 0-255, the first returned in *first.  Leading zeros are refused: some readers
// take "0177" as octal, so such a name would not mean one address to everyone.
bool parseIpv4(const std::string& text, int* first) {
  int octets = 0;
  std::size_t at = 0;
  for (;;) {
    const std::size_t dot = text.find('.', at);
    const std::string part = text.substr(at, dot == kNone ? kNone : dot - at);
    if (!allDigits(part) || part.size() > 3 || (part.size() > 1 && part[0] == '0') || std::stoi(part) > 255) return false;
    if (octets++ == 0) *first = std::stoi(part);
    if (dot == kNone) break;
    at = dot + 1;
  }
  return octets == 4;
}

bool isLoopbackIpv4(const std::string& text) {
  int first = -1;
  return parseIpv4(text, &first) && first == 127;
}

// A bracketed IPv6 literal, "[2001:db8::1]".
bool isIpv6Literal(const std::string& name) {
  if (name.size() < 3 || name.front() != '[' || name.back() != ']') return false;
  in6_addr address{};
  return inet_pton(AF_INET6, name.substr(1, name.size() - 2).c_str(), &address) == 1;
}

// Cuts a Host header into its name ("127.0.0.1", "[::1]", "localhost") and checks its optional port:
// digits, 1-65535.  False when either is malformed or the name is empty.
bool hostName(const std::string& host, std::string* name) {
  std::size_t colon = kNone;
  if (!host.empty() && host[0] == '[') {
    const std::size_t close = host.find(']');
    if (close == kNone) return false;
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return false;
      colon = close + 1;
    }
  } else {
    colon = host.find(':');
  }
  *name = host.substr(0, colon);
  if (name->empty()) return false;
  if (colon == kNone) return true;
  const std::string port = host.substr(colon + 1);
  return allDigits(port) && port.size() <= 5 && std::stoi(port) >= 1 && std::stoi(port) <= 65535;
}

bool isLoopbackName(const std::string& name) {
  return asciiLower(name) == "localhost" || name == "[::1]" || isLoopbackIpv4(name);
}

// A server listening elsewhere than the loopback answers names no DNS answer can move: IP literals,
// the loopback, and the name it was told to listen on (its owner chose that one).
bool isAcceptedElsewhere(const std::string& name, const std::string& bind_address) {
  int first = -1;
  const std::string bind = asciiLower(bind_address);
  return isLoopbackName(name) || parseIpv4(name, &first) || isIpv6Literal(name) || asciiLower(name) == bind ||
         asciiLower(name) == "[" + bind + "]";
}

std::string trimmed(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == kNone) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

}  // namespace

bool isLoopbackAddress(const std::string& address) { return address == "::1" || isLoopbackName(address); }

bool isLoopbackHost(const std::string& host) {
  std::string name;
  return hostName(host, &name) && isLoopbackName(name);
}

bool changesState(const std::string& method) { return method != "GET" && method != "HEAD" && method != "OPTIONS"; }

std::optional<Refusal> checkHost(const std::optional<std::string>& host, const std::string& bind_address) {
  const bool loopback = isLoopbackAddress(bind_address);
  if (!host || host->empty()) {
    const std::string wanted = loopback ? "127.0.0.1, localhost or [::1]" : "the address this server listens on";
    return Refusal{403, "a request without a Host header is refused: send Host: " + wanted + ", with the port"};
  }
  std::string name;
  if (hostName(*host, &name) && (loopback ? isLoopbackName(name) : isAcceptedElsewhere(name, bind_address))) return std::nullopt;
  // A page elsewhere that rebinds its own DNS name to this machine sends that name as Host.
  if (loopback) {
    return Refusal{403, "Host " + quoted(*host) + " refused: this server answers only requests addressed to a 127.x.y.z "
                        "address, localhost or [::1], with an optional :port (1-65535); another name may be a web page "
                        "that rebinds its own name to this machine"};
  }
  return Refusal{403, "Host " + quoted(*host) + " refused: this server answers only requests addressed to an IP address, "
                      "localhost or '" + bind_address + "' (the --host it was given), with an optional :port "
                      "(1-65535); another name may be a web page that rebinds its own name to this machine"};
}

std::optional<Refusal> checkSameOrigin(const GuardedRequest& request) {
  if (!changesState(request.method)) return std::nullopt;
  const std::string own = "http://" + request.host.value_or("");
  const std::string what = "a " + request.method.substr(0, 16) + " request";
  if (request.origin && asciiLower(*request.origin) != asciiLower(own)) {
    return Refusal{403, "Origin " + quoted(*request.origin) + " refused: " + what + " must come from this server's own page (Origin " +
                            quoted(own) + ") or carry no Origin"};
  }
  const std::optional<std::string>& site = request.sec_fetch_site;
  if (site && *site != "same-origin" && *site != "none") {
    return Refusal{403, "Sec-Fetch-Site " + quoted(*site) + " refused: " + what +
                            " must come from this server's own page (same-origin) or from the user (none)"};
  }
  return std::nullopt;
}

std::optional<Refusal> checkContentType(const GuardedRequest& request) {
  if (!changesState(request.method)) return std::nullopt;
  const std::string what = "a " + request.method.substr(0, 16) + " request";
  if (!request.content_type) {
    return Refusal{415, what + " without a Content-Type is refused: send a JSON body (even {}) with Content-Type: application/json"};
  }
  const std::string& type = *request.content_type;
  if (asciiLower(trimmed(type.substr(0, type.find(';')))) != "application/json") {
    return Refusal{415, "Content-Type " + quoted(type) + " refused: " + what + " to this server must send JSON, with " +
                            "Content-Type: application/json (parameters such as ; charset=utf-8 allowed)"};
  }
  return std::nullopt;
}

std::optional<Refusal> checkRequest(const GuardedRequest& request, const std::string& bind_address) {
  if (auto refused = checkHost(request.host, bind_address)) return refused;
  if (auto refused = checkSameOrigin(request)) return refused;
  return checkContentType(request);
}

std::optional<Refusal> checkJsonNesting(const std::string& body, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {  // a bracket in a string is text; \" does not end the string
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return Refusal{400, "the request body nests arrays and objects more than " + std::to_string(max_depth) +
                                " levels deep (at byte " + std::to_string(i) + "): at most " + std::to_string(max_depth) +
                                " are allowed"};
      }
    } else if ((c == ']' || c == '}') && depth > 0) {  // (an unmatched closer is the parser's to refuse)
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace mmp::serve
