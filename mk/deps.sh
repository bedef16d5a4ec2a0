#!/usr/bin/env bash
# Installs the Debian packages placeto needs, if missing: with apt-get as
# root, through sudo when available, otherwise prints the exact command and
# fails. Two sets: what building and running needs (`make run`, `make
# install`), and what the test suite needs besides (`make test` and the
# others). `bash mk/deps.sh` installs both, `bash mk/deps.sh run` the
# run set only, `bash mk/deps.sh screenshots` both and what `make
# screenshots` needs. With --check it only tells: exit 0 when nothing is
# missing, 1 otherwise (the Makefile calls `make deps` or `make deps-run`
# then).
set -u
run_pkgs=(build-essential pkg-config libncurses-dev libgraphviz-dev libcjson-dev
          libopenblas-dev libmetis-dev libscotch-dev graphviz)
# the command-line tests run Python checks, valgrind, tmux, man (the man
# page), the importers' tests import ONNX and PyTorch models, and the MPI
# tests build and run placeto-mpi under mpirun
test_pkgs=(python3 valgrind tmux man-db python3-onnx python3-torch python3-torchvision
           libopenmpi-dev openmpi-bin)
check=0 set=all
for a in "$@"; do
  case $a in
    --check) check=1 ;;
    run|screenshots) set=$a ;;
    *) echo "usage: bash mk/deps.sh [run | screenshots] [--check]" >&2; exit 2 ;;
  esac
done
pkgs=("${run_pkgs[@]}")
[ "$set" = run ] || pkgs+=("${test_pkgs[@]}")
[ "$set" = screenshots ] && pkgs+=(librsvg2-bin fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$check" = 1 ] && exit 1
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
