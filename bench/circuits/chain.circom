pragma circom 2.0.0;

// A multiplication chain for benchmarks: t[i+1] = t[i] * x + y, N steps, one constraint
// per step (--O2 folds the linear assignments t[0] <== x and out <== t[N] away).
// bench/cpu-vs-snarkjs.sh substitutes N so that the domain is exactly 2^k:
// N = 2^k - nPublic - 1 with nPublic = 2 (the output and x).
template Chain(N) {
    signal input x;   // public
    signal input y;   // private
    signal output out;
    signal t[N + 1];
    t[0] <== x;
    for (var i = 0; i < N; i++) {
        t[i + 1] <== t[i] * x + y;
    }
    out <== t[N];
}

component main {public [x]} = Chain(@N@);
