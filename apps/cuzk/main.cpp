// cuzk: Groth16 proving from the command line (prove, verify, setup, demo, bench).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <random>
#include <string>

#include "cuzk/commands.hpp"
#include "cuzk/selfcheck.hpp"
#ifdef CUZK_WITH_CLIENT
#include "cuzk/client_commands.hpp"
#endif

int main(int argc, char** argv) {
  using namespace cuzk::app;
  CLI::App app{"cuzk: a Groth16 prover for snarkjs/circom keys (bn128 and bls12381)"};
  app.require_subcommand(1);
  unsigned threads = 0;
  app.add_option("-t,--threads", threads, "CPU threads (default: all)");

  std::string zkey, wtns, proof, pub, vk;
  auto* prove = app.add_subcommand("prove", "cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>");
  // Input paths are checked by the readers, which name the file and exit 1 like any bad input.
  prove->add_option("zkey", zkey, "proving key (.zkey)")->required();
  prove->add_option("witness", wtns, "witness (.wtns)")->required();
  prove->add_option("proof", proof, "proof.json to write")->required();
  prove->add_option("public", pub, "public.json to write")->required();
  std::string prove_backend = "auto";
  prove->add_option("--backend", prove_backend, "auto (CUDA when a device is usable), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  std::string prove_precompute = "off";
  prove->add_option("--precompute", prove_precompute,
                    "precomputed MSM bases on the GPU: off, auto or sections h,b2,a,b1,l (one proof: off pays)")
      ->capture_default_str();
  bool prove_no_verify = false;
  prove->add_flag("--no-verify", prove_no_verify,
                  "skip checking the proof against the key's verification key before writing it (benchmarks)");

  auto* verify =
      app.add_subcommand("verify", "cuzk verify <verification_key.json> <public.json> <proof.json>; exit 0 iff valid");
  verify->add_option("vk", vk, "verification_key.json")->required();
  verify->add_option("public", pub, "public.json")->required();
  verify->add_option("proof", proof, "proof.json")->required();

  SetupArgs sa;
  bool dev = false;
  auto* setup = app.add_subcommand("setup", "INSECURE dev setup: cuzk setup --dev <circuit.r1cs | --demo N> --zkey out.zkey --vk vk.json");
  setup->add_flag("--dev", dev, "acknowledge that the keys are for testing only (required)")->required();
  auto* r1cs_opt = setup->add_option("r1cs", sa.r1cs, "circuit (.r1cs)")->check(CLI::ExistingFile);
  auto* demo_opt = setup->add_option("--demo", sa.demo_constraints, "use the built-in demo circuit of N constraints");
  r1cs_opt->excludes(demo_opt);
  setup->add_option("--curve", sa.curve, "curve for --demo: bn254 or bls12_381")->capture_default_str();
  setup->add_option("--zkey", sa.zkey, "proving key to write")->required();
  setup->add_option("--vk", sa.vk, "verification_key.json to write")->required();
  setup->add_option("--wtns", sa.wtns, "with --demo: also write the demo witness here");
  setup->add_option("--backend", sa.backend, "where the point multiplications run: auto, cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));

  DemoArgs da;
  int rounds = 0;
  auto* demo = app.add_subcommand("demo", "Build a demo circuit and dev keys (cached), prove and verify it several times");
  demo->add_option("-n,--constraints", da.constraints, "demo circuit constraints (2^k - 5 fills a 2^k domain)")->capture_default_str();
  demo->add_option("-p,--proofs", da.proofs, "proofs to make")->capture_default_str()->check(CLI::PositiveNumber);
  demo->add_option("--curve", da.curve, "bn254 or bls12_381")->capture_default_str();
  demo->add_option("--cache", da.cache, "cache directory (default $CUZK_CACHE or ~/.cache/cuzk)");
  demo->add_option("--backend", da.backend, "auto (CUDA when a device is usable), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  demo->add_option("--precompute", da.precompute, "precomputed MSM bases on the GPU: auto, off or sections h,b2,a,b1,l")
      ->capture_default_str();
  demo->add_flag("--no-selfcheck", da.skip_selfcheck, "skip the arithmetic self-check");
  demo->add_option("--selfcheck-only", rounds, "only run the arithmetic self-check, verbosely, with N trials");

  BenchArgs ba;
  auto* bench = app.add_subcommand("bench", "Prove a zkey (or the demo circuit) N times; median stage timings");
  bench->add_option("--zkey", ba.zkey, "proving key (default: the demo circuit's)")->check(CLI::ExistingFile);
  bench->add_option("--wtns", ba.wtns, "witness for --zkey")->check(CLI::ExistingFile);
  bench->add_option("-n,--constraints", ba.demo_constraints, "demo circuit constraints (2^k - 5 fills a 2^k domain)")->capture_default_str();
  bench->add_option("-r,--runs", ba.runs, "proofs to make")->capture_default_str()->check(CLI::PositiveNumber);
  bench->add_option("--curve", ba.curve, "demo curve: bn254 or bls12_381")->capture_default_str();
  bench->add_option("--backend", ba.backend, "auto (CUDA when a device is usable), cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  bench->add_option("--precompute", ba.precompute,
                    "precomputed MSM bases on the GPU (built at key load): auto, off or sections h,b2,a,b1,l")
      ->capture_default_str();
  bench->add_option("--cache", ba.cache, "cache directory (default $CUZK_CACHE or ~/.cache/cuzk)");
  bench->add_option("--builtin", ba.circuit,
                    "without --zkey: the built-in circuit, demo (hash-like, mostly 0/1 witness) or chain (t' = t*x + y: every value "
                    "full-size, like bench/circuits/chain.circom)")
      ->capture_default_str()
      ->check(CLI::IsMember({"demo", "chain"}));
  bench->add_flag("--key-on-device", ba.key_on_device,
                  "build the demo circuit's INSECURE dev key straight into GPU memory (no zkey file, nothing cached; "
                  "CUDA only): for keys too large for the disk or the host's RAM, e.g. -n 134217723 (2^27)");

#ifdef CUZK_WITH_CLIENT
  int client_exit = 0;
  CLI::App* client = add_client_commands(app, client_exit);
  DaemonBenchArgs dba;
  bench->add_option("--daemon", dba.daemon, "bench a running cuzk-daemon at this socket path or host:port");
  bench->add_option("--circuit", dba.circuit, "with --daemon: circuit id (default: the demo circuit, registered as \"demo\")");
  bench->add_option("--count", dba.count, "with --daemon: proofs to make")->capture_default_str();
  bench->add_option("--concurrency", dba.concurrency, "with --daemon: proofs in flight")->capture_default_str();
  bench->add_option("--priority", dba.priority, "with --daemon: low, normal, high or critical")->capture_default_str();
  bench->add_flag("--witness-path", dba.witness_path,
                  "with --daemon on its Unix socket: send the witness file's path, which the daemon maps, not its bytes");
  bench->add_option("--token-file", dba.token_file, "with --daemon over TCP: bearer token");
  bench->add_option("--tls-ca", dba.tls_ca_file, "with --daemon over TCP: the daemon's CA certificate");
#endif

  CLI11_PARSE(app, argc, argv);

#ifdef CUZK_WITH_CLIENT
  if (client->parsed()) return client_exit;
  if (bench->parsed() && !dba.daemon.empty()) {
    dba.wtns = ba.wtns;
    dba.demo_constraints = ba.demo_constraints;
    dba.curve = ba.curve;
    dba.cache = ba.cache;
    dba.setup_backend = ba.backend;
    return cmd_bench_daemon(dba);
  }
#endif

  if (prove->parsed()) return cmd_prove(zkey, wtns, proof, pub, threads, prove_backend, !prove_no_verify, prove_precompute);
  if (verify->parsed()) return cmd_verify(vk, pub, proof);
  if (setup->parsed()) {
    if (sa.r1cs.empty() && sa.demo_constraints == 0) {
      std::fprintf(stderr, "cuzk setup: give a circuit.r1cs or --demo N\n");
      return 2;
    }
    sa.threads = threads;
    return cmd_setup(sa);
  }
  if (demo->parsed()) {
    if (rounds > 0) return run_selfcheck(rounds, std::random_device{}(), true) == 0 ? 0 : 1;
    da.threads = threads;
    return cmd_demo(da);
  }
  if (bench->parsed()) {
    if (ba.zkey.empty() != ba.wtns.empty()) {
      std::fprintf(stderr, "cuzk bench: give both --zkey and --wtns, or neither (demo circuit)\n");
      return 2;
    }
    std::printf("command:");
    for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
    std::printf("\n");
    ba.threads = threads;
    return ba.key_on_device ? cmd_bench_device_key(ba) : cmd_bench(ba);
  }
  return 2;
}
