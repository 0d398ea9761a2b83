#include "server/grpc_server.hpp"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

namespace cuzk::server {

namespace {

// Every call over TCP must carry "authorization: Bearer <token>".
class BearerTokenCheck final : public grpc::AuthMetadataProcessor {
 public:
  explicit BearerTokenCheck(std::string token) : expected_("Bearer " + std::move(token)) {}
  bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& md, grpc::AuthContext*, OutputMetadata* consumed,
                       OutputMetadata*) override {
    auto it = md.find("authorization");
    if (it == md.end() || !same(std::string_view(it->second.data(), it->second.size()))) {
      return {grpc::StatusCode::UNAUTHENTICATED, "missing or wrong bearer token"};
    }
    consumed->insert(
        {std::string(it->first.data(), it->first.size()), std::string(it->second.data(), it->second.size())});
    return grpc::Status::OK;
  }

 private:
  // Compares without an early exit, so timing does not reveal the token.
  bool same(std::string_view got) const {
    unsigned diff = got.size() != expected_.size();
    for (size_t i = 0; i < expected_.size(); ++i)
      diff |= unsigned(uint8_t(expected_[i]) ^ uint8_t(i < got.size() ? got[i] : 0));
    return diff == 0;
  }
  std::string expected_;
};

Result<std::string> read_text(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return not_found(std::string(what) + " " + path + " cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Result<std::unique_ptr<GrpcServer>> GrpcServer::start(ProvingService& service, const ListenConfig& cfg) {
  if (cfg.unix_socket.empty() && cfg.tcp_address.empty()) {
    return invalid_argument("no listen address: set unix_socket or tcp_address");
  }
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(int(std::min<uint64_t>(cfg.max_message_bytes, INT32_MAX)));
  builder.SetMaxSendMessageSize(64 << 20);
  std::unique_ptr<GrpcServer> s(new GrpcServer());
  if (!cfg.unix_socket.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path sock(cfg.unix_socket);
    if (sock.has_parent_path()) fs::create_directories(sock.parent_path(), ec);
    if (fs::is_socket(sock, ec)) fs::remove(sock, ec);  // a stale socket from an earlier run
    builder.AddListeningPort("unix:" + cfg.unix_socket, grpc::InsecureServerCredentials());
    s->unix_socket_ = cfg.unix_socket;
  }
  if (!cfg.tcp_address.empty()) {
    if (cfg.tls_cert_file.empty() || cfg.tls_key_file.empty() || cfg.bearer_token.empty()) {
      return invalid_argument(
          "tcp_address " + cfg.tcp_address +
          " needs tls_cert_file, tls_key_file and a bearer token: TCP is never served in the clear");
    }
    CUZK_ASSIGN_OR_RETURN(std::string cert, read_text(cfg.tls_cert_file, "tls_cert_file"));
    CUZK_ASSIGN_OR_RETURN(std::string key, read_text(cfg.tls_key_file, "tls_key_file"));
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({key, cert});
    auto creds = grpc::SslServerCredentials(ssl);
    creds->SetAuthMetadataProcessor(std::make_shared<BearerTokenCheck>(cfg.bearer_token));
    builder.AddListeningPort(cfg.tcp_address, creds);
  }
  builder.RegisterService(&service);
  // The socket is created with 0600 from the start (umask), not chmod-ed after the fact.
  mode_t old = umask(0177);
  s->server_ = builder.BuildAndStart();
  umask(old);
  if (!s->server_) {
    return Status(StatusCode::kUnavailable,
                  "gRPC server could not listen on " +
                      (cfg.unix_socket.empty() ? cfg.tcp_address : "unix:" + cfg.unix_socket) +
                      " (in use, or no permission)");
  }
  if (!cfg.unix_socket.empty()) chmod(cfg.unix_socket.c_str(), 0600);
  return s;
}

void GrpcServer::shutdown(int64_t deadline_ms) {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  server_->Wait();
  server_.reset();
  if (!unix_socket_.empty()) {
    std::error_code ec;
    std::filesystem::remove(unix_socket_, ec);
  }
}

GrpcServer::~GrpcServer() { shutdown(0); }

}  // namespace cuzk::server
