#!/usr/bin/env bash
# Installs the Debian packages placeto needs to build and test, if missing:
# with apt-get as root, through sudo when available, otherwise prints the
# exact command and fails. `bash tests/deps.sh --check` only tells: exit 0
# when nothing is missing, 1 otherwise (the Makefile calls `make deps` then).
set -u
pkgs=(build-essential pkg-config libncurses-dev libgraphviz-dev libcjson-dev
      libopenblas-dev libmetis-dev libscotch-dev graphviz python3 valgrind tmux
      python3-onnx)
# `bash tests/deps.sh screenshots`: also what `make screenshots` needs
[ "${1:-}" = screenshots ] && pkgs+=(librsvg2-bin fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "${1:-}" = --check ] && exit 1
echo "placeto: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo"
else
  echo "placeto: please run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null || {
  echo "placeto: apt-get install failed; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
}
