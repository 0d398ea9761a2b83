// The Unix socket the daemon listens on and the client dials when neither is told:
// $XDG_RUNTIME_DIR/cuzk/cuzk.sock, else /tmp/cuzk-<uid>/cuzk.sock (a per-user directory).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace cuzk::server {

inline std::string default_unix_socket() {
  if (const char* d = std::getenv("XDG_RUNTIME_DIR"); d != nullptr && *d != '\0')
    return std::string(d) + "/cuzk/cuzk.sock";
  return "/tmp/cuzk-" + std::to_string(getuid()) + "/cuzk.sock";
}

// A gRPC target from what a user types: a path (or unix:path) is a Unix socket, host:port TCP.
inline std::string grpc_target(const std::string& addr) {
  if (addr.empty()) return "unix:" + default_unix_socket();
  if (addr.rfind("unix:", 0) == 0 || addr.rfind("dns:", 0) == 0 || addr.rfind("ipv4:", 0) == 0) return addr;
  if (addr.find('/') != std::string::npos) return "unix:" + addr;
  return addr;
}

}  // namespace cuzk::server
