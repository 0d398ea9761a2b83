// A client we did not write the stubs for: @grpc/grpc-js + @grpc/proto-loader reading
// proto/cuzk/v1/proving.proto, against a running cuzk-daemon on a Unix socket. Every proof
// it gets back is verified with snarkjs.
// usage: node daemon_client.mjs SOCKET PROTO_DIR ZKEY WTNS VK_JSON OTHER_WTNS BLS_WTNS BIG_ZKEY BIG_WTNS BIG_VK
import fs from "node:fs";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";
import * as snarkjs from "snarkjs";

const [sock, protoDir, zkey, wtnsPath, vkPath, otherWtnsPath, blsWtnsPath, bigZkey, bigWtnsPath, bigVkPath] =
  process.argv.slice(2);
const def = protoLoader.loadSync("cuzk/v1/proving.proto", {
  includeDirs: [protoDir], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const { ProvingEngine } = grpc.loadPackageDefinition(def).cuzk.v1;
const opts = { "grpc.max_send_message_length": 64 << 20, "grpc.max_receive_message_length": 64 << 20 };
const connect = () => new ProvingEngine("unix:" + sock, grpc.credentials.createInsecure(), opts);
const client = connect();
const call = (c, method, req) =>
  new Promise((resolve, reject) => c[method](req, (err, res) => (err ? reject(err) : resolve(res))));

const wtns = fs.readFileSync(wtnsPath);
const vk = JSON.parse(fs.readFileSync(vkPath, "utf8"));
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"}  ${what}`);
  if (!ok) failures++;
};
const codeOf = async (p) => {
  try {
    await p;
    return 0;
  } catch (e) {
    return e.code;
  }
};
const verifies = async (res) =>
  res.outcome === "COMPLETED" &&
  (await snarkjs.groth16.verify(vk, JSON.parse(res.result.public_json), JSON.parse(res.result.proof_json)));
const submit = (w, priority = "PRIORITY_NORMAL", extra = {}) =>
  call(client, "SubmitProof", { circuit_id: "node", priority, witness_wtns: w, ...extra });
const awaitJob = (job_id, timeout_ms = 60000) => call(client, "AwaitProof", { job_id, timeout_ms });

await call(client, "RegisterCircuit", { circuit_id: "node", zkey_path: zkey, preload: true });

// Many concurrent clients, each on its own channel.
const results = await Promise.all(
  Array.from({ length: 6 }, async () => {
    const c = connect();
    const out = [];
    for (let i = 0; i < 2; i++) {
      out.push(await call(c, "Prove", { request: { circuit_id: "node", witness_wtns: wtns } }));
    }
    c.close();
    return out;
  }),
);
const all = results.flat();
check(all.length === 12 && all.every((r) => r.outcome === "COMPLETED"), "12 proofs from 6 concurrent clients complete");
check((await Promise.all(all.map(verifies))).every(Boolean), "snarkjs verifies every returned proof");

// A CRITICAL job behind 20 NORMAL ones finishes before the ones still queued (a larger
// circuit here, so the NORMAL ones are still queued when it arrives).
await call(client, "RegisterCircuit", { circuit_id: "node-big", zkey_path: bigZkey, preload: true });
const bigWtns = fs.readFileSync(bigWtnsPath);
const bigVk = JSON.parse(fs.readFileSync(bigVkPath, "utf8"));
const submitBig = (priority) => call(client, "SubmitProof", { circuit_id: "node-big", priority, witness_wtns: bigWtns });
const normal = (await Promise.all(Array.from({ length: 20 }, () => submitBig("PRIORITY_NORMAL")))).map((r) => r.job_id);
const critical = (await submitBig("PRIORITY_CRITICAL")).job_id;
const crit = await awaitJob(critical);
const normals = await Promise.all(normal.map((id) => awaitJob(id)));
const after = normals.filter((n) => Number(n.job.finished_unix_ms) > Number(crit.job.finished_unix_ms)).length;
check(crit.outcome === "COMPLETED" &&
  (await snarkjs.groth16.verify(bigVk, JSON.parse(crit.result.public_json), JSON.parse(crit.result.proof_json))),
  "the CRITICAL proof completes and verifies");
check(after >= 15, `the CRITICAL proof overtakes the queued NORMAL ones (${after} of 20 finish after it)`);

// Cancellation of a queued job.
const queued = [];
for (let i = 0; i < 6; i++) queued.push((await submit(wtns)).job_id);
const cancelled = await call(client, "CancelProof", { job_id: queued[5] });
check(cancelled.state === "JOB_STATE_CANCELLED", "CancelProof cancels a queued job");
check((await awaitJob(queued[5])).outcome === "CANCELLED", "AwaitProof reports CANCELLED");
await Promise.all(queued.slice(0, 5).map((id) => awaitJob(id)));

// Idempotent resubmission.
const a = await submit(wtns, "PRIORITY_NORMAL", { request_id: "node-r1" });
const b = await submit(wtns, "PRIORITY_NORMAL", { request_id: "node-r1" });
check(a.job_id === b.job_id && b.deduplicated, "the same request_id returns the same job");
const other = fs.readFileSync(otherWtnsPath);
check((await codeOf(submit(other, "PRIORITY_NORMAL", { request_id: "node-r1" }))) === grpc.status.INVALID_ARGUMENT,
  "a different payload under a known request_id is INVALID_ARGUMENT");
check(await verifies(await awaitJob(a.job_id)), "the idempotent job's proof verifies");

// AwaitProof timeout on a queued job.
const burst = [];
for (let i = 0; i < 8; i++) burst.push((await submit(wtns)).job_id);
check((await awaitJob(burst[7], 1)).outcome === "TIMEOUT", "AwaitProof with a 1 ms timeout on a queued job is TIMEOUT");
await Promise.all(burst.map((id) => awaitJob(id)));

// Bad requests get their codes.
check((await codeOf(call(client, "SubmitProof", { circuit_id: "nope", witness_wtns: wtns }))) === grpc.status.NOT_FOUND,
  "unknown circuit: NOT_FOUND");
check((await codeOf(submit(Buffer.from("not a witness")))) === grpc.status.INVALID_ARGUMENT, "garbage: INVALID_ARGUMENT");
check((await codeOf(submit(other))) === grpc.status.INVALID_ARGUMENT, "wrong-length witness: INVALID_ARGUMENT");
check((await codeOf(submit(fs.readFileSync(blsWtnsPath)))) === grpc.status.INVALID_ARGUMENT,
  "wrong-curve witness: INVALID_ARGUMENT");
check((await codeOf(awaitJob("job-unknown", 1))) === grpc.status.NOT_FOUND, "unknown job: NOT_FOUND");

// A streamed witness.
const streamed = await new Promise((resolve, reject) => {
  const s = client.SubmitProofStream((err, res) => (err ? reject(err) : resolve(res)));
  s.write({ request: { circuit_id: "node", witness_size: wtns.length } });
  for (let off = 0; off < wtns.length; off += 4096) s.write({ witness_chunk: wtns.subarray(off, off + 4096) });
  s.end();
});
check(await verifies(await awaitJob(streamed.job_id)), "a witness streamed in 4 KiB chunks proves and verifies");

const status = await call(client, "GetStatus", {});
check(status.ready && status.devices.length >= 1, "GetStatus: ready, devices listed");
console.log(failures ? `${failures} checks failed` : "all checks passed");
process.exit(failures ? 1 : 0);
