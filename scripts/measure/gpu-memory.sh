#!/usr/bin/env bash
# Planned vs measured device and host memory of GPU runs at several grid sizes, up to
# the largest grid the plan accepts (docs/gpu.md, "Memory: plan and measurement").
# Usage: gpu-memory.sh FDTD_BINARY OUT_DIR [SIZES...]   (vacuum cubes, 1 mm cells, 10-cell
# CPML, 20 steps, checkpoints off). Samples nvidia-smi every 100 ms when it exists.
set -uo pipefail
F=$1; OUT=$2; shift 2
SIZES=${*:-512 1100}
mkdir -p "$OUT"
scene() { # scene N FILE
  python3 - "$1" "$2" <<'PY'
import sys
n=int(sys.argv[1]); h=n/2000
open(sys.argv[2],'w').write(f'''[domain]
cell = 1e-3
cells = [{n}, {n}, {n}]
[time]
steps = 20
[boundaries]
all = "cpml"
[[sources]]
type = "current"
component = "Ez"
position = [{h}, {h}, {h}]
waveform = {{ type = "gaussian", frequency = 3e9 }}
[[probes]]
name = "p"
position = [{h+0.005}, {h}, {h}]
components = ["Ez"]
''')
PY
}
# The largest cube the plan accepts, from the refusal of a cube that is far too big.
scene 2000 "$OUT/s2000.toml"
"$F" check "$OUT/s2000.toml" --backend gpu > "$OUT/check_2000.txt" 2>&1
LARGEST=$(grep -o 'a grid of [0-9]*^3' "$OUT/check_2000.txt" | head -1 | grep -o '[0-9]*' | head -1)
echo "largest accepted cube: $LARGEST"
for n in $SIZES $LARGEST $((LARGEST + 1)); do
  scene "$n" "$OUT/s$n.toml"
  "$F" check "$OUT/s$n.toml" --backend gpu > "$OUT/check_$n.txt" 2>&1; echo "check $n: exit $?"
  if [ "$n" = $((LARGEST + 1)) ]; then tail -2 "$OUT/check_$n.txt"; continue; fi
  SMI=""
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$OUT/smi_$n.txt" & SMI=$!
  fi
  /usr/bin/time -v "$F" run "$OUT/s$n.toml" --backend gpu --no-checkpoint -o "$OUT/s$n.h5" --force > "$OUT/run_$n.txt" 2>&1
  echo "run $n: exit $?"
  [ -n "$SMI" ] && kill "$SMI"
  grep -E "complete|memory|error|Maximum resident" "$OUT/run_$n.txt"
  [ -n "$SMI" ] && echo "nvidia-smi max MiB used: $(sort -n "$OUT/smi_$n.txt" | tail -1) (idle before: $(head -1 "$OUT/smi_$n.txt"))"
  rm -f "$OUT/s$n.h5"
done
# With checkpoints (every 10 steps: the state is read back and copied on the host).
n=${SIZES%% *}
"$F" run "$OUT/s$n.toml" --backend gpu --checkpoint-every 10 -o "$OUT/ck$n.h5" --force > "$OUT/run_ck$n.txt" 2>&1
echo "run $n with checkpoints: exit $?"; grep -E "complete|memory|error" "$OUT/run_ck$n.txt"
rm -f "$OUT/ck$n.h5"*
