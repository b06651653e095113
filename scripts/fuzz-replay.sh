#!/bin/bash
# Replay the inputs a `result_file` fuzz campaign kept (crash-*, timeout-*, oom-*)
# through `fdtd info` (and `fdtd plot` with --plot), with a 5 s read deadline, and
# print one line per input: name, exit code, seconds, the first line of stderr. What
# must hold (docs/robustness.md, "Fuzzing"): exit 0 or 2, never a signal (> 128), never
# much past the deadline. Run from the repository root after `cargo build --release`:
#   scripts/fuzz-replay.sh DIR [--plot] > replay.txt
#   awk '{print $2}' replay.txt | sort | uniq -c
set -u
dir=$1; cmd=info; [ "${2:-}" = --plot ] && cmd=plot
bin=$(pwd)/target/release/fdtd
out=$(mktemp -d)
for f in "$dir"/*; do
  s=$(date +%s.%N)
  if [ $cmd = plot ]; then
    FDTD_READ_TIMEOUT=5 timeout -s KILL 60 "$bin" plot "$f" -o "$out/$(basename "$f")" >/dev/null 2>"$out/err"; rc=$?
  else
    FDTD_READ_TIMEOUT=5 timeout -s KILL 60 "$bin" info "$f" >/dev/null 2>"$out/err"; rc=$?
  fi
  e=$(date +%s.%N)
  printf '%s %s %.2f %s\n' "$(basename "$f")" "$rc" "$(echo "$e - $s" | bc)" "$(head -1 "$out/err" | cut -c1-160)"
done
rm -rf "$out"
