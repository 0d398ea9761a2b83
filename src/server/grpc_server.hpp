// Where the gRPC service listens: a Unix socket (the default, created 0600 so only the
// daemon's user can connect) and, only when configured, TCP with TLS and a bearer token
// checked on every call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/server.h>

#include "core/status.hpp"
#include "server/proving_service.hpp"

namespace cuzk::server {

struct ListenConfig {
  std::string unix_socket;                  // socket path; empty: none
  std::string tcp_address;                  // host:port; empty: none
  std::string tls_cert_file, tls_key_file;  // PEM; required with tcp_address
  std::string bearer_token;                 // required with tcp_address
  uint64_t max_message_bytes = uint64_t(64) << 20;
};

class GrpcServer {
 public:
  static Result<std::unique_ptr<GrpcServer>> start(ProvingService& service, const ListenConfig& cfg);
  ~GrpcServer();

  // Stops accepting calls; calls still running get until `deadline_ms` to finish.
  void shutdown(int64_t deadline_ms);
  const std::string& unix_socket() const { return unix_socket_; }

 private:
  GrpcServer() = default;
  std::unique_ptr<grpc::Server> server_;
  std::string unix_socket_;
};

}  // namespace cuzk::server
