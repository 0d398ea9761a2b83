// `cuzk client prove|status|register|preload|evict|cancel|jobs` and `cuzk bench --daemon`:
// the commands that talk to a running cuzk-daemon.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace cuzk::app {

// Adds the `client` subcommand tree to `app`; when one of them runs, its exit status goes
// to `exit_code`. Returns the `client` subcommand.
CLI::App* add_client_commands(CLI::App& app, int& exit_code);

struct DaemonBenchArgs {
  std::string daemon, token_file, tls_ca_file;
  std::string circuit = "demo";
  std::string wtns;  // empty: the built-in demo circuit, registered under `circuit`
  uint32_t demo_constraints = (1 << 16) - 5;
  std::string curve = "bn254";
  std::string cache;
  std::string setup_backend = "auto";  // where the demo's dev setup runs (cuzk bench --backend)
  int count = 5;
  int concurrency = 1;
  std::string priority = "normal";
  bool witness_path = false;  // send the witness file's path (a local daemon maps it), not its bytes
};
int cmd_bench_daemon(const DaemonBenchArgs& a);

}  // namespace cuzk::app
