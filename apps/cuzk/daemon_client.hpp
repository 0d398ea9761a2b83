// A connection to cuzk-daemon for the `cuzk client` and `cuzk bench --daemon` commands:
// the channel (Unix socket, or TCP with TLS and a bearer token) and the calls they share.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>

#include <grpcpp/grpcpp.h>

#include "core/status.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::app {

struct DaemonAddress {
  std::string address;      // socket path, unix:path or host:port; empty: the default socket
  std::string token_file;   // bearer token (TCP)
  std::string tls_ca_file;  // CA that signed the daemon's certificate (TCP)
};

class DaemonClient {
 public:
  static Result<DaemonClient> connect(const DaemonAddress& a);

  v1::ProvingEngine::Stub& stub() { return *stub_; }
  const std::string& target() const { return target_; }
  // A call context carrying the bearer token (if any) and a deadline (0: none).
  std::unique_ptr<grpc::ClientContext> context(std::chrono::milliseconds deadline = std::chrono::milliseconds(0)) const;

  // SubmitProof with the witness bytes: one message when small, a chunked stream otherwise; a
  // header naming a witness_path goes as it is (the daemon maps the file, `wtns` is unused).
  grpc::Status submit(const v1::SubmitProofRequest& header, std::span<const uint8_t> wtns,
                      v1::SubmitProofResponse* out);

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ProvingEngine::Stub> stub_;
  std::string target_, token_;
};

// "INVALID_ARGUMENT: witness has 7 values ..." for messages.
std::string describe(const grpc::Status& s);

}  // namespace cuzk::app
