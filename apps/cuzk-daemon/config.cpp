#include "cuzk-daemon/config.hpp"

#include <cctype>
#include <set>

#include <toml++/toml.h>

#include "groth16/precompute_spec.hpp"
#include "server/default_address.hpp"

namespace cuzk::daemon {

Result<uint64_t> parse_bytes(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(uint8_t(s[i]))) ++i;
  if (i == 0) return invalid_argument("\"" + s + "\" is not a byte size (e.g. 512MiB, 4GiB, 1000000)");
  uint64_t v = std::stoull(s.substr(0, i));
  std::string unit = s.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  static const std::pair<const char*, uint64_t> units[] = {{"", 1},
                                                           {"B", 1},
                                                           {"KiB", 1ull << 10},
                                                           {"MiB", 1ull << 20},
                                                           {"GiB", 1ull << 30},
                                                           {"TiB", 1ull << 40},
                                                           {"KB", 1000},
                                                           {"MB", 1000000},
                                                           {"GB", 1000000000ull}};
  for (auto [name, mul] : units) {
    if (unit == name) return v * mul;
  }
  return invalid_argument("\"" + s + "\": unknown unit \"" + unit + "\" (B, KiB, MiB, GiB, TiB, KB, MB, GB)");
}

namespace {

// Reads the keys of one table, refusing any it does not know.
class Table {
 public:
  Table(const toml::table* t, std::string name) : t_(t), name_(std::move(name)) {}

  template <class T>
  Status get(const char* key, T& out) {
    seen_.insert(key);
    if (t_ == nullptr) return Status::ok();
    const toml::node* n = t_->get(key);
    if (n == nullptr) return Status::ok();
    if constexpr (std::is_same_v<T, std::string>) {
      auto v = n->value<std::string>();
      if (!v) return bad(key, "a string");
      out = *v;
    } else if constexpr (std::is_same_v<T, bool>) {
      auto v = n->value<bool>();
      if (!v) return bad(key, "true or false");
      out = *v;
    } else {
      auto v = n->value<int64_t>();
      if (!v || *v < 0) return bad(key, "a non-negative integer");
      out = T(*v);
    }
    return Status::ok();
  }

  Status bytes(const char* key, uint64_t& out) {
    seen_.insert(key);
    if (t_ == nullptr) return Status::ok();
    const toml::node* n = t_->get(key);
    if (n == nullptr) return Status::ok();
    if (auto v = n->value<int64_t>(); v && *v >= 0) {
      out = uint64_t(*v);
      return Status::ok();
    }
    auto s = n->value<std::string>();
    if (!s) return bad(key, "a byte count or a size such as \"4GiB\"");
    CUZK_ASSIGN_OR_RETURN(out, parse_bytes(*s));
    return Status::ok();
  }

  Status no_unknown_keys() const {
    if (t_ == nullptr) return Status::ok();
    for (const auto& [k, v] : *t_) {
      if (!seen_.count(std::string(k.str()))) {
        return invalid_argument("config: [" + name_ + "] has no key \"" + std::string(k.str()) + "\"");
      }
    }
    return Status::ok();
  }

 private:
  Status bad(const char* key, const char* want) const {
    return invalid_argument("config: [" + name_ + "] " + key + " must be " + want);
  }
  const toml::table* t_;
  std::string name_;
  std::set<std::string> seen_;
};

}  // namespace

Result<DaemonConfig> load_config(const std::string& path) {
  DaemonConfig c;
  c.listen.unix_socket = server::default_unix_socket();
  if (path.empty()) return c;
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return invalid_argument("config " + path + ": " + std::string(e.description()) + " at line " +
                            std::to_string(e.source().begin.line));
  }
  static const std::set<std::string> tables = {"server", "metrics", "engine", "devices", "selftest", "log", "circuit"};
  for (const auto& [k, v] : root) {
    if (!tables.count(std::string(k.str()))) {
      return invalid_argument("config " + path + ": unknown table [" + std::string(k.str()) + "]");
    }
  }
  Table server(root["server"].as_table(), "server");
  CUZK_RETURN_IF_ERROR(server.get("unix_socket", c.listen.unix_socket));
  CUZK_RETURN_IF_ERROR(server.get("tcp_address", c.listen.tcp_address));
  CUZK_RETURN_IF_ERROR(server.get("tls_cert_file", c.listen.tls_cert_file));
  CUZK_RETURN_IF_ERROR(server.get("tls_key_file", c.listen.tls_key_file));
  CUZK_RETURN_IF_ERROR(server.get("bearer_token_file", c.bearer_token_file));
  CUZK_RETURN_IF_ERROR(server.bytes("max_witness_bytes", c.limits.max_witness_bytes));
  CUZK_RETURN_IF_ERROR(server.get("allow_witness_path", c.limits.allow_witness_path));
  CUZK_RETURN_IF_ERROR(server.bytes("idle_witness_bytes", c.limits.idle_witness_bytes));
  CUZK_RETURN_IF_ERROR(server.get("shutdown_grace_seconds", c.shutdown_grace_seconds));
  CUZK_RETURN_IF_ERROR(server.no_unknown_keys());

  Table metrics(root["metrics"].as_table(), "metrics");
  CUZK_RETURN_IF_ERROR(metrics.get("address", c.metrics_address));
  CUZK_RETURN_IF_ERROR(metrics.no_unknown_keys());

  Table eng(root["engine"].as_table(), "engine");
  engine::EngineConfig& e = c.engine;
  CUZK_RETURN_IF_ERROR(eng.bytes("host_memory_bytes", e.host_memory_bytes));
  CUZK_RETURN_IF_ERROR(eng.bytes("critical_reserve_bytes", e.critical_reserve_bytes));
  CUZK_RETURN_IF_ERROR(eng.bytes("key_cache_bytes", e.key_cache_bytes));
  CUZK_RETURN_IF_ERROR(eng.get("synthesis_threads", e.synthesis_threads));
  CUZK_RETURN_IF_ERROR(eng.get("gpu_workers_per_device", e.gpu_workers_per_device));
  CUZK_RETURN_IF_ERROR(eng.get("finalize_threads", e.finalize_threads));
  CUZK_RETURN_IF_ERROR(eng.get("queue_capacity", e.queue_capacity));
  CUZK_RETURN_IF_ERROR(eng.get("batch_max", e.batch_max));
  if (e.batch_max == 0) return invalid_argument("config " + path + ": [engine] batch_max must be at least 1");
  uint64_t batch_wait = uint64_t(e.batch_wait.count());
  CUZK_RETURN_IF_ERROR(eng.get("batch_wait_ms", batch_wait));
  if (batch_wait > 10000) {
    return invalid_argument("config " + path + ": [engine] batch_wait_ms " + std::to_string(batch_wait) +
                            " is above 10000 (a lone proof would wait that long)");
  }
  e.batch_wait = std::chrono::milliseconds(batch_wait);
  uint64_t ttl = uint64_t(e.result_ttl.count());
  CUZK_RETURN_IF_ERROR(eng.get("result_ttl_seconds", ttl));
  e.result_ttl = std::chrono::seconds(ttl);
  CUZK_RETURN_IF_ERROR(eng.get("max_results", e.max_results));
  CUZK_RETURN_IF_ERROR(eng.no_unknown_keys());

  Table dev(root["devices"].as_table(), "devices");
  CUZK_RETURN_IF_ERROR(dev.get("cuda", c.cuda_devices));
  CUZK_RETURN_IF_ERROR(dev.bytes("cuda_safety_margin_bytes", c.cuda_safety_margin_bytes));
  CUZK_RETURN_IF_ERROR(dev.bytes("cuda_memory_cap_bytes", c.cuda_memory_cap_bytes));
  CUZK_RETURN_IF_ERROR(dev.get("cuda_precompute", c.cuda_precompute));
  if (auto p = groth16::parse_precompute_spec(c.cuda_precompute, "[devices] cuda_precompute"); !p.is_ok()) {
    return invalid_argument("config " + path + ": " + p.status().message());
  }
  CUZK_RETURN_IF_ERROR(dev.bytes("cuda_precompute_max_bytes", c.cuda_precompute_max_bytes));
  bool cpu = false;
  if (const toml::table* t = root["devices"].as_table(); t != nullptr && t->contains("cpu")) {
    CUZK_RETURN_IF_ERROR(dev.get("cpu", cpu));
    c.cpu_device = cpu;
  } else {
    CUZK_RETURN_IF_ERROR(dev.get("cpu", cpu));  // marks the key as known
  }
  CUZK_RETURN_IF_ERROR(dev.get("cpu_threads", c.cpu_threads));
  CUZK_RETURN_IF_ERROR(dev.bytes("cpu_memory_bytes", c.cpu_memory_bytes));
  CUZK_RETURN_IF_ERROR(dev.get("on_device_lost", c.on_device_lost));
  if (c.on_device_lost != "restart" && c.on_device_lost != "continue") {
    return invalid_argument("config " + path + ": [devices] on_device_lost is \"" + c.on_device_lost +
                            "\", expected \"restart\" or \"continue\"");
  }
  CUZK_RETURN_IF_ERROR(dev.no_unknown_keys());

  Table st(root["selftest"].as_table(), "selftest");
  CUZK_RETURN_IF_ERROR(st.get("enabled", c.selftest));
  CUZK_RETURN_IF_ERROR(st.get("constraints", c.selftest_constraints));
  CUZK_RETURN_IF_ERROR(st.no_unknown_keys());

  Table log(root["log"].as_table(), "log");
  CUZK_RETURN_IF_ERROR(log.get("level", c.log_level));
  CUZK_RETURN_IF_ERROR(log.no_unknown_keys());

  if (const toml::array* arr = root["circuit"].as_array()) {
    for (const auto& n : *arr) {
      const toml::table* t = n.as_table();
      if (t == nullptr) return invalid_argument("config: [[circuit]] entries must be tables");
      Table ct(t, "circuit");
      CircuitConfig cc;
      CUZK_RETURN_IF_ERROR(ct.get("id", cc.id));
      CUZK_RETURN_IF_ERROR(ct.get("zkey", cc.zkey));
      CUZK_RETURN_IF_ERROR(ct.get("preload", cc.preload));
      CUZK_RETURN_IF_ERROR(ct.no_unknown_keys());
      if (cc.id.empty() || cc.zkey.empty()) return invalid_argument("config: every [[circuit]] needs id and zkey");
      c.circuits.push_back(cc);
    }
  } else if (root.contains("circuit")) {
    return invalid_argument("config: circuits are [[circuit]] entries (an array of tables)");
  }
  return c;
}

}  // namespace cuzk::daemon
