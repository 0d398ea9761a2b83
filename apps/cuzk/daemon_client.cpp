#include "cuzk/daemon_client.hpp"

#include <fstream>
#include <sstream>

#include "server/default_address.hpp"

namespace cuzk::app {

namespace {

Result<std::string> read_file(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return not_found(std::string(what) + " " + path + " cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr size_t kUnaryLimit = size_t(3) << 20;  // below gRPC's 4 MiB default message limit
constexpr size_t kChunk = size_t(1) << 20;

}  // namespace

Result<DaemonClient> DaemonClient::connect(const DaemonAddress& a) {
  DaemonClient c;
  c.target_ = server::grpc_target(a.address);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  if (c.target_.rfind("unix:", 0) == 0) {
    c.channel_ = grpc::CreateCustomChannel(c.target_, grpc::InsecureChannelCredentials(), args);
  } else {
    grpc::SslCredentialsOptions ssl;
    if (!a.tls_ca_file.empty()) {
      CUZK_ASSIGN_OR_RETURN(ssl.pem_root_certs, read_file(a.tls_ca_file, "--tls-ca"));
    }
    c.channel_ = grpc::CreateCustomChannel(c.target_, grpc::SslCredentials(ssl), args);
    if (!a.token_file.empty()) {
      CUZK_ASSIGN_OR_RETURN(std::string token, read_file(a.token_file, "--token-file"));
      while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
      c.token_ = token;
    }
  }
  c.stub_ = v1::ProvingEngine::NewStub(c.channel_);
  return c;
}

std::unique_ptr<grpc::ClientContext> DaemonClient::context(std::chrono::milliseconds deadline) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) ctx->AddMetadata("authorization", "Bearer " + token_);
  if (deadline.count() > 0) ctx->set_deadline(std::chrono::system_clock::now() + deadline);
  return ctx;
}

grpc::Status DaemonClient::submit(const v1::SubmitProofRequest& header, std::span<const uint8_t> wtns,
                                  v1::SubmitProofResponse* out) {
  if (header.witness_case() == v1::SubmitProofRequest::kWitnessPath) {  // the daemon reads the file
    auto ctx = context();
    return stub_->SubmitProof(ctx.get(), header, out);
  }
  if (wtns.size() <= kUnaryLimit) {
    v1::SubmitProofRequest req = header;
    req.set_witness_wtns(std::string(wtns.begin(), wtns.end()));
    auto ctx = context();
    return stub_->SubmitProof(ctx.get(), req, out);
  }
  auto ctx = context();
  auto writer = stub_->SubmitProofStream(ctx.get(), out);
  v1::SubmitProofChunk first;
  *first.mutable_request() = header;
  first.mutable_request()->set_witness_size(wtns.size());
  bool ok = writer->Write(first);
  for (size_t off = 0; ok && off < wtns.size(); off += kChunk) {
    v1::SubmitProofChunk c;
    size_t n = std::min(kChunk, wtns.size() - off);
    c.set_witness_chunk(std::string(reinterpret_cast<const char*>(wtns.data() + off), n));
    ok = writer->Write(c);
  }
  writer->WritesDone();
  return writer->Finish();
}

std::string describe(const grpc::Status& s) {
  static const char* names[] = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  int code = int(s.error_code());
  std::string name = code >= 0 && code <= 16 ? names[code] : "UNKNOWN";
  return name + ": " + s.error_message();
}

}  // namespace cuzk::app
