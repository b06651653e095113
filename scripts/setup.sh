#!/usr/bin/env bash
# Install the system packages fdtd needs on Debian/Ubuntu (idempotent).
#   scripts/setup.sh          build + run: HDF5 library and headers, pkg-config
#   scripts/setup.sh --test   also the GPU test stack: the Vulkan loader and Mesa's
#                             software Vulkan driver (lavapipe), h5dump, and Slurm with
#                             munge (the sweep tests start a single-node Slurm with
#                             scripts/slurm/start.sh)
# Uses sudo when not root. On other systems install the equivalents by hand
# (HDF5 >= 1.10 with headers; a Vulkan loader for --backend gpu).
set -euo pipefail
pkgs=(libhdf5-dev pkg-config)
if [[ "${1:-}" == "--test" ]]; then
  pkgs+=(mesa-vulkan-drivers libvulkan1 hdf5-tools slurmctld slurmd slurm-client munge)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all system packages present (${pkgs[*]})"
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
