pragma circom 2.0.0;

include "poseidon.circom";  // circomlib, found through -l

// A chain of circomlib Poseidon(2) hashes for benchmarks: h[i+1] = Poseidon(h[i], x), M hashes
// (real-world constraint shapes: many linear terms per row). bench/cpu-vs-snarkjs.sh
// substitutes M so that the constraints fill 2^k rows as closely as possible without
// exceeding them. circomlib's round constants are BN254's; under --prime bls12381 they are
// the same integers taken in BLS12-381's scalar field (they are all below its modulus),
// which compiles and proves, but is not a studied Poseidon instance: a benchmark shape only.
template PoseidonChain(M) {
    signal input x;   // public
    signal input h0;  // private
    signal output out;
    signal h[M + 1];
    component p[M];
    h[0] <== h0;
    for (var i = 0; i < M; i++) {
        p[i] = Poseidon(2);
        p[i].inputs[0] <== h[i];
        p[i].inputs[1] <== x;
        h[i + 1] <== p[i].out;
    }
    out <== h[M];
}

component main {public [x]} = PoseidonChain(@M@);
