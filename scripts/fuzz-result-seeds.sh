#!/bin/sh
# Seeds of the `result_file` fuzz target: the hostile result files of
# solver/cli/tests/hostile_files.rs (each at most 100 000 bytes), written to
# fuzz/corpus/result (not committed: about 2 MB). Run from the repository root:
#   scripts/fuzz-result-seeds.sh
#   cd fuzz && cargo +nightly fuzz run result_file corpus/result -- -max_len=100000
set -eu
out="$(pwd)/fuzz/corpus/result"
FDTD_FUZZ_SEEDS="$out" cargo test --release -p fdtd --test hostile_files -- --ignored write_fuzz_seeds --nocapture
