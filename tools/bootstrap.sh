#!/usr/bin/env bash
# Set up, build, and either run the demo plan or the whole test suite.
#
#   tools/bootstrap.sh demo    install what is missing, build, run pipelines/demo.sh
#   tools/bootstrap.sh test    install what is missing, build, run every test
#   tools/bootstrap.sh packages    install what is missing, then build and test
#                              the Debian packages and the Python wheel from a
#                              clean copy of the tree (installs them into /usr
#                              and purges them again: a throwaway machine)
#
# Idempotent: packages already installed are not reinstalled, an existing
# build directory is reconfigured (dependencies looked for again) rather
# than recreated. GPU support needs no CUDA toolkit at build time (NVRTC
# at run time); where the toolkit is found (nvcc on PATH or under
# /usr/local/cuda) the tests that compile kernels with nvcc are built as
# well, and `test` also builds and tests a configuration without nvcc,
# MPI, HDF5 and Zarr.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
mode=${1:-demo}

packages=(meson ninja-build pkg-config gcc libc6-dev
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base
  python3-numpy python3-scipy python3-numexpr
  clang libclang-rt-14-dev valgrind
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gstreamer-1.0
  graphviz bsdutils
  libjson-glib-dev  # gst-validate's build (.ci/run), for tests/validate; Zarr metadata
  openmpi-bin libopenmpi-dev
  zlib1g-dev libhdf5-dev python3-h5py python3-netcdf4
  libzstd-dev libblosc-dev libdeflate-dev python3-zarr
  python3-dask  # tests/benchmarks: the dask.array peer of the HDF5 and Zarr jobs
  ccache
  build-essential debhelper dh-python dpkg-dev fakeroot lintian man-db
  python3-mesonpy python3-venv python3-pip)

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

# An existing build directory is set up again (--reconfigure), which looks
# for the dependencies anew: one set up before the packages above were
# installed would otherwise go on without them (HDF5, zstd, ...).
configure () {
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@"
  fi
  ninja -C "$dir"
}

case "$mode" in
  packages)
    # The Debian packages, then the wheel; each from its own clean copy.
    status=0
    echo "== Debian packages (tests/install/debs.sh)"
    tests/install/debs.sh || status=1
    echo "== pip install . (tests/install/wheel.sh)"
    tests/install/wheel.sh || status=1
    exit $status
    ;;
esac

# zarr-python 3 (PyPI; Debian 12 has zarr 2) writes and reads the Zarr v3
# stores of tests/pipelines/test_zarr.py, in a virtual environment of its
# own (it needs a newer numpy than Debian's). Without the network the v3
# cases are skipped, saying so.
zarr3=${XDG_CACHE_HOME:-$HOME/.cache}/gst-plan/zarr3
if ! "$zarr3/bin/python" -c 'import zarr, sys; sys.exit(zarr.__version__[0] != "3")' 2>/dev/null; then
  echo "== zarr 3 into $zarr3"
  { /usr/bin/python3 -m venv --clear "$zarr3" && "$zarr3/bin/pip" install -q 'zarr>=3,<4'; } ||
    echo "== zarr 3 could not be installed: the Zarr v3 tests will be skipped"
fi

configure build

case "$mode" in
  demo)
    exec pipelines/demo.sh build
    ;;
  test)
    status=0
    echo "== layers: no include in libplan points up a layer (tools/check-layers.py)"
    tools/check-layers.py || status=1
    meson test -C build --print-errorlogs --num-processes 2 || status=1
    if grep -q '^#define HAVE_CUDA 1' build/config.h; then
      echo "== without nvcc, MPI, HDF5 and Zarr (-Dcuda=disabled -Dmpi=disabled -Dhdf5=disabled -Dzarr=disabled)"
      # Only the baseline CPU loops there (their ISA variants are the same
      # source and were tested above): it halves the build.
      configure build-cpu -Dcuda=disabled -Dmpi=disabled -Dhdf5=disabled -Dzarr=disabled \
        -Dfuzzing=disabled -Dcpu-isa-variants=false
      # The fuzz targets do not depend on CUDA, the CUDA code generators'
      # tests (suite cuda: NVRTC and nvcc compiles of generated source, the
      # same source in both configurations) and the longest end-to-end
      # tests, of code that is the same in both (suite slow), ran above.
      meson test -C build-cpu --print-errorlogs --num-processes 2 \
        --no-suite fuzz --no-suite cuda --no-suite slow || status=1
    fi
    echo "== memory: the unit tests under valgrind"
    meson test -C build --setup valgrind --suite check --no-suite cuda \
      --print-errorlogs --num-processes 2 || status=1
    echo "== memory: the unit tests built with AddressSanitizer and UBSan"
    configure build-asan -Db_sanitize=address,undefined -Db_lundef=false \
      -Dcuda=disabled -Dfuzzing=disabled -Dintrospection=disabled \
      -Dcpu-isa-variants=false
    # In-process plugin scanning (the system scanner is not instrumented);
    # the sim device's guard test expects a real SIGSEGV; the device tests
    # ask for impossible allocations on purpose. The stress test's cycles
    # are fewer there: ASan makes each slower, and the 10,000 ran above.
    # The timeouts are doubled for the same reason (libs/halo takes 40 s
    # alone on a quiet machine against its 120, and more beside another).
    PLAN_STRESS_CYCLES=2000 GST_REGISTRY_FORK=no \
    ASAN_OPTIONS=handle_segv=0:allocator_may_return_null=1:detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      meson test -C build-asan --suite check --no-suite cuda \
      --print-errorlogs --num-processes 2 --timeout-multiplier 2 || status=1
    tools/test-summary.py build build-cpu build-asan
    exit $status
    ;;
  *)
    echo "usage: $0 demo|test|packages" >&2
    exit 2
    ;;
esac
