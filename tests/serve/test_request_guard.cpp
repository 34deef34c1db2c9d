// The checks every request to `mmp serve` passes (tools/serve/src/request_guard.hpp), rule by rule, with
// the cases each accepts and refuses: an exact loopback Host (DNS rebinding sends another name), no
// state-changing request from another origin, JSON bodies only, and a bounded JSON nesting.
#include "request_guard.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {

using mmp::serve::checkContentType;
using mmp::serve::checkHost;
using mmp::serve::checkJsonNesting;
using mmp::serve::checkRequest;
using mmp::serve::checkSameOrigin;
using mmp::serve::GuardedRequest;
using mmp::serve::isLoopbackAddress;
using mmp::serve::isLoopbackHost;
using mmp::serve::kMaxJsonDepth;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A POST from the server's own page at 127.0.0.1:8080, which every rule accepts.
GuardedRequest ownPost() { return {"POST", "127.0.0.1:8080", "http://127.0.0.1:8080", "same-origin", "application/json"}; }

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("serve: request guard: the loopback Host names with an optional port are accepted") {
  for (const char* host : {"127.0.0.1:8080", "127.0.0.1", "localhost", "localhost:80", "LocalHost:8080", "[::1]", "[::1]:9",
                           "127.255.0.1", "127.0.0.1:1", "127.0.0.1:65535", "127.1.2.3:00080"}) {
    INFO("Host: ", std::string(host));
    CHECK(isLoopbackHost(host));
    CHECK_FALSE(checkHost(std::string(host), "127.0.0.1"));
  }
}

TEST_CASE("serve: request guard: a Host that only starts like the loopback is refused") {
  for (const char* host : {"127.0.0.1.evil.example", "127.evil.example", "127.0.0.1.evil.example:8080", "256.0.0.1", "128.0.0.1",
                           "127.0.0", "127.0.0.1.", "127.0.0.01", "127.0.0.256", "127.0.0.1:99999", "127.0.0.1:0", "127.0.0.1:",
                           "127.0.0.1:80:80", "127.0.0.1:8o", "localhost.evil", "localhost.", "evil.localhost", "[::1", "[::1]x",
                           "[::2]", "::1", "[::1]:", "", " 127.0.0.1", "127.0.0.1 "}) {
    INFO("Host: '", std::string(host), "'");
    CHECK_FALSE(isLoopbackHost(host));
    const auto refused = checkHost(std::string(host), "127.0.0.1");
    REQUIRE(refused);
    CHECK(refused->status == 403);
    CHECK(contains(refused->message, "Host"));
    CHECK(contains(refused->message, "localhost"));  // what would be accepted
  }
  const auto missing = checkHost(std::nullopt, "127.0.0.1");
  REQUIRE(missing);
  CHECK(missing->status == 403);
  CHECK(contains(missing->message, "without a Host"));
  CHECK(contains(checkHost(std::string("127.0.0.1.evil.example"), "127.0.0.1")->message, "'127.0.0.1.evil.example'"));
}

TEST_CASE("serve: request guard: a server on another address answers IP literals and its own --host only") {
  for (const char* bind : {"0.0.0.0", "192.168.1.20", "robot.local"}) {
    INFO("--host ", std::string(bind));
    CHECK_FALSE(isLoopbackAddress(bind));
    for (const char* host : {"192.168.1.20:8080", "10.0.0.5", "[fe80::1]:8080", "[::1]", "127.0.0.1:8080", "localhost"}) {
      INFO("Host: ", std::string(host));
      CHECK_FALSE(checkHost(std::string(host), bind));
    }
    for (const char* host : {"evil.example", "127.0.0.1.evil.example", "192.168.1.20.evil.example:8080", "[not-ipv6]", "256.1.1.1"}) {
      INFO("Host: ", std::string(host));
      const auto refused = checkHost(std::string(host), bind);
      REQUIRE(refused);
      CHECK(contains(refused->message, bind));
    }
  }
  CHECK_FALSE(checkHost(std::string("robot.local:8080"), "robot.local"));
  CHECK(checkHost(std::string("robot.local:8080"), "0.0.0.0"));
}

TEST_CASE("serve: request guard: the listening address is loopback exactly") {
  for (const char* address : {"127.0.0.1", "127.255.0.1", "localhost", "::1", "[::1]"}) CHECK(isLoopbackAddress(address));
  for (const char* address : {"127.0.0.1.evil.example", "127.evil.example", "0.0.0.0", "::", "", "127.0.0.1:8080"}) {
    INFO("address ", std::string(address));
    CHECK_FALSE(isLoopbackAddress(address));
  }
}

TEST_CASE("serve: request guard: a state-changing request from another origin is refused") {
  CHECK_FALSE(checkSameOrigin(ownPost()));
  GuardedRequest plain = ownPost();  // curl and other clients that are not browsers send neither header
  plain.origin.reset();
  plain.sec_fetch_site.reset();
  CHECK_FALSE(checkSameOrigin(plain));
  GuardedRequest typed = ownPost();  // a user typing the address: Sec-Fetch-Site none
  typed.sec_fetch_site = "none";
  CHECK_FALSE(checkSameOrigin(typed));
  GuardedRequest upper = ownPost();
  upper.origin = "HTTP://127.0.0.1:8080";
  CHECK_FALSE(checkSameOrigin(upper));

  for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
    for (const char* origin : {"http://evil.example", "null", "http://127.0.0.1:8081", "http://localhost:8080", "https://127.0.0.1:8080",
                               "http://127.0.0.1:8080.evil.example", ""}) {
      GuardedRequest r = ownPost();
      r.method = method;
      r.origin = origin;
      INFO(std::string(method), " Origin: '", std::string(origin), "'");
      const auto refused = checkSameOrigin(r);
      REQUIRE(refused);
      CHECK(refused->status == 403);
      CHECK(contains(refused->message, std::string("Origin '") + origin + "'"));
      CHECK(contains(refused->message, "http://127.0.0.1:8080"));  // what would be accepted
    }
    for (const char* site : {"cross-site", "same-site", "", "Same-Origin"}) {
      GuardedRequest r = ownPost();
      r.method = method;
      r.sec_fetch_site = site;
      INFO(std::string(method), " Sec-Fetch-Site: '", std::string(site), "'");
      const auto refused = checkSameOrigin(r);
      REQUIRE(refused);
      CHECK(refused->status == 403);
      CHECK(contains(refused->message, std::string("Sec-Fetch-Site '") + site + "'"));
    }
  }
  // Reads change nothing: a link followed from another site still opens the page.
  for (const char* method : {"GET", "HEAD", "OPTIONS"}) {
    CHECK_FALSE(checkSameOrigin({method, "127.0.0.1:8080", "http://evil.example", "cross-site", std::nullopt}));
  }
}

TEST_CASE("serve: request guard: a state-changing request that is not application/json is refused") {
  for (const char* type : {"application/json", "application/json; charset=utf-8", "Application/JSON", " application/json ;charset=UTF-8"}) {
    GuardedRequest r = ownPost();
    r.content_type = type;
    INFO("Content-Type: '", std::string(type), "'");
    CHECK_FALSE(checkContentType(r));
  }
  // The types a foreign page's form or no-cors fetch may send without a CORS preflight, and others.
  for (const char* type : {"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                           "application/jsonx", "application/json-patch+json", "json", ""}) {
    GuardedRequest r = ownPost();
    r.content_type = type;
    INFO("Content-Type: '", std::string(type), "'");
    const auto refused = checkContentType(r);
    REQUIRE(refused);
    CHECK(refused->status == 415);
    CHECK(contains(refused->message, std::string("Content-Type '") + type + "'"));
    CHECK(contains(refused->message, "application/json"));
  }
  GuardedRequest untyped = ownPost();
  untyped.content_type.reset();
  REQUIRE(checkContentType(untyped));
  CHECK(checkContentType(untyped)->status == 415);
  CHECK_FALSE(checkContentType({"GET", "127.0.0.1:8080", std::nullopt, std::nullopt, "text/plain"}));
}

TEST_CASE("serve: request guard: checkRequest applies the rules in order") {
  CHECK_FALSE(checkRequest(ownPost(), "127.0.0.1"));
  GuardedRequest all_wrong{"POST", "127.0.0.1.evil.example", "http://evil.example", "cross-site", "text/plain"};
  CHECK(contains(checkRequest(all_wrong, "127.0.0.1")->message, "Host"));
  all_wrong.host = "127.0.0.1:8080";
  CHECK(contains(checkRequest(all_wrong, "127.0.0.1")->message, "Origin"));
  all_wrong.origin.reset();
  CHECK(contains(checkRequest(all_wrong, "127.0.0.1")->message, "Sec-Fetch-Site"));
  all_wrong.sec_fetch_site.reset();
  CHECK(checkRequest(all_wrong, "127.0.0.1")->status == 415);
}

TEST_CASE("serve: request guard: JSON nested deeper than the limit is refused before parsing") {
  CHECK_FALSE(checkJsonNesting(""));
  CHECK_FALSE(checkJsonNesting(R"({"points": [[3, 3], [30, 5]], "revision": 0})"));
  CHECK_FALSE(checkJsonNesting(nested(kMaxJsonDepth)));
  CHECK_FALSE(checkJsonNesting("{\"a\":" + nested(kMaxJsonDepth - 1) + "}"));
  // Levels are counted, not brackets: many arrays side by side are shallow.
  std::string wide = "[";
  for (int i = 0; i < 10000; ++i) wide += "[[1]],";
  CHECK_FALSE(checkJsonNesting(wide + "[]]"));
  // Brackets in strings are text, and an escaped quote does not end a string.
  CHECK_FALSE(checkJsonNesting("{\"a\": \"" + std::string(1000, '[') + "\"}"));
  CHECK_FALSE(checkJsonNesting("{\"a\": \"\\\"" + std::string(1000, '{') + "\", \"b\": \"\\\\\"}"));
  // Unmatched closers are the parser's to refuse; they do not hide the levels after them.
  CHECK(checkJsonNesting(std::string(100, ']') + nested(kMaxJsonDepth + 1)));

  for (const std::string& body : {nested(kMaxJsonDepth + 1), "{\"start\": " + nested(kMaxJsonDepth) + "}", nested(500000),
                                  std::string(500000, '{'), "[\"]\", " + nested(kMaxJsonDepth) + "]",
                                  "{\"a\": \"\\\\\", \"b\": " + nested(kMaxJsonDepth) + "}"}) {
    INFO("body of ", body.size(), " bytes: ", body.substr(0, 40));
    const auto refused = checkJsonNesting(body);
    REQUIRE(refused);
    CHECK(refused->status == 400);
    CHECK(contains(refused->message, "at most 16"));
  }
  CHECK(checkJsonNesting(nested(4), 3));
  CHECK_FALSE(checkJsonNesting(nested(3), 3));
}
