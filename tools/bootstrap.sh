#!/usr/bin/env bash
# Set up, build, and either run the demo plan or the whole test suite.
#
#   tools/bootstrap.sh demo    install what is missing, build, run pipelines/demo.sh
#   tools/bootstrap.sh test    install what is missing, build, run every test
#
# Idempotent: packages already installed are not reinstalled, an existing
# build directory is reconfigured rather than recreated. The CUDA toolkit is
# optional; where it is found (nvcc on PATH or under /usr/local/cuda) GPU
# support is built as well. `test` builds and tests both the CUDA and the
# CPU-only configuration when the toolkit is present.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
mode=${1:-demo}

packages=(meson ninja-build pkg-config gcc libc6-dev
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base
  python3-numpy python3-scipy python3-numexpr
  clang libclang-rt-14-dev valgrind)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

configure () {
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson configure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@"
  fi
  ninja -C "$dir"
}

configure build

case "$mode" in
  demo)
    exec pipelines/demo.sh build
    ;;
  test)
    status=0
    meson test -C build --print-errorlogs --num-processes 2 || status=1
    if grep -q '^#define HAVE_CUDA 1' build/config.h; then
      echo "== CPU-only configuration (-Dcuda=disabled)"
      configure build-cpu -Dcuda=disabled
      meson test -C build-cpu --print-errorlogs --num-processes 2 || status=1
    fi
    tools/test-summary.py build build-cpu
    exit $status
    ;;
  *)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac
