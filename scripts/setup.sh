#!/usr/bin/env bash
# Install what lgraph needs on Debian 12, if it is not there yet. Idempotent:
# a second run checks the packages and returns at once.
set -euo pipefail
packages=(gcc make cmake pkg-config libuv1-dev libxxhash-dev libcriterion-dev libdnnl-dev
          clang clang-format libclang-rt-14-dev libomp-14-dev valgrind
          libprotobuf-c-dev protobuf-c-compiler python3-onnx python3-numpy
          python3-torch python3-torchvision)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
