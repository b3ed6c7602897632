#!/usr/bin/env bash
# Install the Debian 12 packages tusk needs, only those that are missing.
# Idempotent: a second run installs nothing and does not touch the network.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libns3-dev ns3 libgsl-dev            # ns-3 3.37: its CMake config references files from all three
  libboost-dev libeigen3-dev libfmt-dev catch2 libtomlplusplus-dev libcli11-dev libsqlite3-dev nlohmann-json3-dev libssl-dev
  python3 python3-pandas python3-matplotlib python3-scipy   # analysis/ and `tusk report` (via /usr/bin/python3; scipy: t quantiles)
  pybind11-dev python3-pybind11 python3-dev   # the `tusk` Python module (python/, docs/scripting.md)
  protobuf-compiler libprotobuf-dev python3-protobuf   # Chakra execution traces: protoc + library; the trace generator in tests/data/chakra
  chromium                             # the tests render report.html headless, offline
  tshark                               # pcap decoding check (RoCE dissector) in the tests
  clang-14 libclang-rt-14-dev          # scripts/sanitize.sh: ASan + UBSan build, libFuzzer runtime
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections || true
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
