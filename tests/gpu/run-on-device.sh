#!/usr/bin/env bash
# The GPU check: run the cuda-backend test suites and a copy bandwidth
# benchmark on a machine with an NVIDIA GPU, the driver and the CUDA toolkit,
# but without GStreamer installed. Prints a summary; takes under 5 minutes.
#
# What it needs travels with the source tree:
#   - a build directory made here (default build-dev; --build DIR), with the
#     test executables (tests/check/*_cuda) and tests/benchmarks/
#     device-bandwidth;
#   - GStreamer's runtime (Debian packages) in tests/gpu/runtime/debs,
#     downloaded beforehand on a Debian machine with
#         tests/gpu/run-on-device.sh --prepare
#     and unpacked on the GPU machine with dpkg -x (or ar + tar).
#
# Usage:
#   tests/gpu/run-on-device.sh --prepare      download the .debs (here)
#   tests/gpu/run-on-device.sh                run on the GPU machine
#   tests/gpu/run-on-device.sh --sim          the same on the sim device, to
#                                             check the script without a GPU
#   options: --build DIR (the build directory), --mib N (benchmark size),
#            --no-suites (skip the test suites: only the measurements and
#            the element comparisons, for a rerun), --logs DIR (keep every
#            suite's and pipeline's log there), --sanitize (also run the
#            suites under compute-sanitizer's memcheck)
#
# Then tests/benchmarks/device-kernels: x + y and the 2-D Laplacian on
# device-resident 16384 x 16384 float32 arrays against a device copy, and
# the NVRTC compile cold against cached. Then every element with
# target=cuda against target=cpu on the same file
# (the same bytes, or DIFFERENT / FAILED), and the wall time of pipelines
# on 16384 x 16384 float32 arrays (512 x 512 with --sim): a device-resident
# chain of maps x + y, file-streamed map and sum, the 2-D Laplacian, and
# the NVRTC cold compile against the cached second run.
#
# Exit status: 0 when every suite passed (or, with --sim, ran), 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$top/build-dev
runtime=$here/runtime
mode=run
device=cuda
mib=256
suites=yes
logs=
sanitize=no
start=$(date +%s)

while [ $# -gt 0 ]; do
  case "$1" in
    --prepare) mode=prepare ;;
    --sim) device=sim ;;
    --build) build=$(cd "$2" && pwd); shift ;;
    --mib) mib=$2; shift ;;
    --no-suites) suites=no ;;
    --logs) mkdir -p "$2"; logs=$(cd "$2" && pwd); shift ;;
    --sanitize) sanitize=yes ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "run-on-device: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# GStreamer core (libgstreamer, libgstbase, libgstcheck, the core elements,
# the plugin scanner), GLib, and what they link, as Debian 12 ships them.
packages=(libgstreamer1.0-0 gstreamer1.0-tools libglib2.0-0 libunwind8 libdw1 libelf1 libcap2
  libffi8 libpcre2-8-0 libmount1 libblkid1 libselinux1 zlib1g liblzma5
  libbz2-1.0 libzstd1 libjson-glib-1.0-0 libdeflate0)

prepare() {
  mkdir -p "$runtime/debs"
  cd "$runtime/debs"
  echo "== downloading ${packages[*]}"
  apt-get download "${packages[@]}"
  ls -l "$runtime/debs"
}

unpack() {
  local deb
  rm -rf "$runtime/root"
  mkdir -p "$runtime/root"
  for deb in "$runtime"/debs/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$runtime/root"
    else
      # no dpkg: a .deb is an ar archive holding data.tar.*
      (cd "$runtime/root" && ar p "$deb" "$(ar t "$deb" | grep '^data.tar')" |
        tar -x -a -f - 2>/dev/null || ar p "$deb" data.tar.xz | tar -xJ)
    fi
  done
}

# A folder of links: GLib and GStreamer always from the packages (our build
# wants their versions); anything else only when the system lacks it.
link_libs() {
  local root=$runtime/root lib=$runtime/lib f name pass missing
  local multiarch
  multiarch=$(ls -d "$root"/usr/lib/*-linux-gnu | head -1)
  rm -rf "$lib"
  mkdir -p "$lib"
  for f in "$multiarch"/libglib-2.0.so* "$multiarch"/libgobject-2.0.so* \
      "$multiarch"/libgmodule-2.0.so* "$multiarch"/libgio-2.0.so* \
      "$multiarch"/libgthread-2.0.so* "$multiarch"/libgst*.so*; do
    [ -e "$f" ] && ln -sf "$f" "$lib/"
  done
  for pass in 1 2 3; do
    missing=$(for f in "$build"/tests/check/* "$build"/tests/benchmarks/* \
        "$build"/plugins/*.so "$build"/libplan/*.so "$multiarch"/gstreamer-1.0/*.so; do
        [ -f "$f" ] && [ -x "$f" -o "${f%.so}" != "$f" ] &&
          LD_LIBRARY_PATH="$lib:$build/libplan" ldd "$f" 2>/dev/null
      done | awk '/not found/ {print $1}' | sort -u)
    [ -z "$missing" ] && break
    for name in $missing; do
      f=$(find "$root" -name "$name" | head -1)
      if [ -n "$f" ]; then
        ln -sf "$f" "$lib/$name"
      else
        echo "run-on-device: $name is missing and not in the packages" >&2
      fi
    done
  done
  echo "$multiarch"
}

if [ "$mode" = prepare ]; then
  prepare
  exit 0
fi

[ -d "$build/tests/check" ] || {
  echo "run-on-device: no build at $build (make one with meson, or --build)" >&2
  exit 1
}
tmp=$(mktemp -d)
keep_logs() {
  [ -n "$logs" ] || return 0
  cp "$tmp"/*.log "$tmp"/*.txt "$logs"/ 2>/dev/null || true
}
trap 'keep_logs; rm -rf "$tmp"' EXIT
launch=gst-launch-1.0
if ls "$runtime"/debs/*.deb >/dev/null 2>&1; then
  echo "== unpacking the GStreamer runtime"
  unpack
  multiarch=$(link_libs | tail -1)
  export LD_LIBRARY_PATH="$runtime/lib:$build/libplan${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GST_PLUGIN_SYSTEM_PATH_1_0=""
  export GST_PLUGIN_PATH_1_0="$build/plugins:$multiarch/gstreamer-1.0"
  export GST_PLUGIN_SCANNER_1_0="$multiarch/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"
  launch="$runtime/root/usr/bin/gst-launch-1.0"
elif [ "$device" = sim ] && command -v gst-launch-1.0 >/dev/null; then
  # --sim on a machine with GStreamer installed needs no packages
  echo "== GStreamer of the system (no packages in $runtime/debs)"
  export LD_LIBRARY_PATH="$build/libplan${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GST_PLUGIN_PATH_1_0="$build/plugins"
else
  echo "run-on-device: no packages in $runtime/debs; run --prepare on a" \
    "Debian machine first" >&2
  exit 1
fi
export GST_REGISTRY_1_0="$tmp/registry.bin"
export PLAN_BUILD_DIR="$build" PLAN_SOURCE_DIR="$top"
export PLAN_TEST_DEVICE="$device"
export CK_DEFAULT_TIMEOUT=120
export GST_DEBUG="${GST_DEBUG:-*:1}"
if [ "$device" = sim ]; then
  export GST_PLAN_DEVICE=sim
fi

echo "== machine"
uname -srm
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
else
  echo "no nvidia-smi"
fi

declare -a results
failed=0
suites_list=("$build"/tests/check/*_cuda "$build"/tests/check/libs_exprcuda
  "$build"/tests/check/libs_stencilcuda)

# run_suite LABEL LOG SUMMARY-PATTERN TIMEOUT TIMEOUT-FAILS COMMAND...: runs
# one suite, records its verdict (a memcheck run exits 3 on errors) and the
# last line of its log matching SUMMARY-PATTERN, and shows the log's end on
# failure; running out of time fails the check where TIMEOUT-FAILS is yes.
run_suite() {
  local label=$1 log=$2 pattern=$3 limit=$4 timeout_fails=$5 rc verdict
  shift 5
  set +e
  timeout "$limit" "$@" > "$log" 2>&1
  rc=$?
  set -e
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIP ;;
    3) verdict=ERRORS; failed=1 ;;
    124) verdict=TIMEOUT; [ "$timeout_fails" = no ] || failed=1 ;;
    *) verdict="FAIL($rc)"; failed=1 ;;
  esac
  results+=("$label $verdict $(grep -E "$pattern" "$log" | tail -1 || true)")
  echo "$label: $verdict"
  [ "$verdict" = PASS ] || [ "$verdict" = SKIP ] || tail -20 "$log"
}

echo "== test suites (PLAN_TEST_DEVICE=$device)"
for t in "${suites_list[@]}"; do
  [ -x "$t" ] && [ "$suites" = yes ] || continue
  run_suite "$(basename "$t")" "$tmp/$(basename "$t").log" 'Checks:' 150 yes "$t"
done

echo "== copy bandwidth, ${mib} MiB x 10 (GB/s)"
set +e
timeout 100 "$build/tests/benchmarks/device-bandwidth" "$device" "$mib" 10 \
  > "$tmp/plan.txt" 2>&1
bench_rc=$?
ref_rc=1
if [ "$device" = cuda ] && command -v nvcc >/dev/null; then
  nvcc -O2 -o "$tmp/bandwidth-ref" "$here/bandwidth-ref.cu" &&
    timeout 100 "$tmp/bandwidth-ref" "$mib" 10 > "$tmp/ref.txt" 2>&1
  ref_rc=$?
fi
set -e
[ $bench_rc -eq 0 ] || { cat "$tmp/plan.txt"; failed=1; }
grep '^#' "$tmp/plan.txt" || true
printf '%-14s %10s %10s\n' copy libplan cudaMemcpy
for kind in h2d-pageable h2d-pinned d2h-pinned d2d; do
  ours=$(awk -v k="$kind" '$1 == "plan" && $2 == k {print $3}' "$tmp/plan.txt")
  ref=-
  [ $ref_rc -eq 0 ] &&
    ref=$(awk -v k="$kind" '$1 == "cuda" && $2 == k {print $3}' "$tmp/ref.txt")
  printf '%-14s %10s %10s\n' "$kind" "${ours:--}" "${ref:--}"
done

echo "== kernels on device-resident arrays (GB/s read + written, ratio to the copy)"
if [ "$device" = sim ]; then kside=512; kiter=3; else kside=16384; kiter=10; fi
set +e
timeout 150 "$build/tests/benchmarks/device-kernels" "$device" "$kside" "$kiter" \
  > "$tmp/kernels.txt" 2>&1
kernels_rc=$?
set -e
cat "$tmp/kernels.txt"
[ $kernels_rc -eq 0 ] || failed=1

# Every element on cuda against cpu on the same data, and the pipeline
# figures. Sizes: 16384 x 16384 float32 on a GPU (1 GiB per array), 512 x
# 512 on the sim device.
if [ "$device" = sim ]; then side=512; else side=16384; fi
declare -a elements
gen() { # gen FILE ROWS COLS SEED: a float32 .npy of small integers
  python3 - "$@" <<'PYEOF'
import struct, sys
path, rows, cols, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
d = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
pad = 64 - (10 + len(d) + 1) % 64
with open(path, 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(d) + pad + 1))
    f.write((d + ' ' * pad + '\n').encode())
    row = struct.pack('<%df' % cols, *[float((i * 7 + seed) % 13) for i in range(cols)])
    for r in range(rows):
        f.write(row[4 * (r % cols):] + row[:4 * (r % cols)])
PYEOF
}
now() { date +%s.%N; }
# run NAME SECONDS-VAR PIPELINE...: runs one gst-launch-1.0, times it
timed() {
  local t0 t1
  t0=$(now)
  if ! timeout 120 "$launch" -q "$@" > "$tmp/launch.log" 2>&1; then
    { echo "== $*"; cat "$tmp/launch.log"; } >> "$tmp/failed-launches.log"
    tail -5 "$tmp/launch.log"; return 1
  fi
  t1=$(now)
  echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'
}
secs() { case "$1" in ''|*[!0-9.]*) echo "${1:-failed}" ;; *) echo "$1 s" ;; esac; }
gbps() { echo "$1 $2" | awk '{ if ($2 ~ /^[0-9.]+$/ && $2 > 0) printf "%.2f", $1 / $2 / 1e9; else print "-" }'; }

echo "== elements on $device against cpu (${side} x ${side} float32)"
gen "$tmp/x.npy" "$side" "$side" 1
gen "$tmp/y.npy" "$side" "$side" 5
bytes=$(( side * side * 4 ))
lap='window=_ n _; w c e; _ s _'
lapx='expr=n + s + e + w - 4*c'
compare() { # compare NAME CPU-OUT DEV-OUT
  if [ ! -f "$3" ]; then verdict="FAILED to run"; failed=1
  elif cmp -s "$2" "$3"; then verdict=same; else verdict=DIFFERENT; failed=1; fi
  elements+=("$1: $verdict")
  echo "$1: $verdict"
}
set +e
for target in cpu cuda; do
  # plandownload: the elements' output goes to device memory on cuda (it
  # passes system memory through on cpu)
  timed planfilesrc location="$tmp/x.npy" ! planmap name=m expr="x + y" target=$target \
    ! plandownload ! planfilesink location="$tmp/map-$target.npy" \
    planfilesrc location="$tmp/y.npy" ! m. > "$tmp/t-map-$target" || echo fail > "$tmp/t-map-$target"
  timed planfilesrc location="$tmp/x.npy" ! planreduce op=sum target=$target \
    ! plandownload ! planfilesink location="$tmp/sum-$target.npy" > "$tmp/t-sum-$target" || echo failed > "$tmp/t-sum-$target"
  timed planfilesrc location="$tmp/x.npy" ! planreduce op=var axis=0 target=$target \
    ! plandownload ! planfilesink location="$tmp/var0-$target.npy" > "$tmp/t-var0-$target" || echo failed > "$tmp/t-var0-$target"
  timed planfilesrc location="$tmp/x.npy" ! planstencil "$lap" "$lapx" boundary=nearest \
    target=$target ! plandownload ! planfilesink location="$tmp/lap-$target.npy" > "$tmp/t-lap-$target" || echo fail > "$tmp/t-lap-$target"
done
timed planfilesrc location="$tmp/x.npy" ! planupload ! plandownload \
  ! planfilesink location="$tmp/copy-$device.npy" > "$tmp/t-copy" || echo fail > "$tmp/t-copy"
compare "planupload ! plandownload" "$tmp/x.npy" "$tmp/copy-$device.npy"
compare "planmap x + y" "$tmp/map-cpu.npy" "$tmp/map-cuda.npy"
compare "planreduce sum" "$tmp/sum-cpu.npy" "$tmp/sum-cuda.npy"
compare "planreduce var axis=0" "$tmp/var0-cpu.npy" "$tmp/var0-cuda.npy"
compare "planstencil Laplacian" "$tmp/lap-cpu.npy" "$tmp/lap-cuda.npy"

echo "== pipeline figures (wall time of gst-launch-1.0, GB/s of input read)"
t_res=$(timed planfilesrc location="$tmp/x.npy" ! planupload ! planmap name=m expr="x + y" \
  target=cuda ! planmap expr="x + 1" target=cuda ! plandownload ! fakesink \
  planfilesrc location="$tmp/y.npy" ! planupload ! m.)
printf '%-44s %9s %8s GB/s\n' "map x + y, device-resident chain" "$(secs "$t_res")" \
  "$(gbps $(( 2 * bytes )) "${t_res:-0}")"
printf '%-44s %9s %8s GB/s\n' "file-streamed map x + y (target=cuda)" \
  "$(secs "$(cat "$tmp/t-map-cuda")")" "$(gbps $(( 2 * bytes )) "$(cat "$tmp/t-map-cuda")")"
printf '%-44s %9s %8s GB/s\n' "file-streamed sum (target=cuda)" \
  "$(secs "$(cat "$tmp/t-sum-cuda")")" "$(gbps $bytes "$(cat "$tmp/t-sum-cuda")")"
printf '%-44s %9s %8s GB/s\n' "2-D Laplacian ${side}^2 (target=cuda)" \
  "$(secs "$(cat "$tmp/t-lap-cuda")")" "$(gbps $bytes "$(cat "$tmp/t-lap-cuda")")"
printf '%-44s %9s %8s GB/s\n' "2-D Laplacian ${side}^2 (target=cpu)" \
  "$(secs "$(cat "$tmp/t-lap-cpu")")" "$(gbps $bytes "$(cat "$tmp/t-lap-cpu")")"
printf '%-44s %9s\n' "upload ! download" "$(secs "$(cat "$tmp/t-copy")")"

echo "== NVRTC: cold compile against the cached second run"
gen "$tmp/small.npy" 64 64 3
cold=$(XDG_CACHE_HOME="$tmp/cache" timed planfilesrc location="$tmp/small.npy" \
  ! planstencil "$lap" "expr=n * s + e - w * c + 0.25" target=cuda ! plandownload ! fakesink)
warm=$(XDG_CACHE_HOME="$tmp/cache" timed planfilesrc location="$tmp/small.npy" \
  ! planstencil "$lap" "expr=n * s + e - w * c + 0.25" target=cuda ! plandownload ! fakesink)
echo "first run ${cold:-failed} s, second run ${warm:-failed} s" \
  "(cache entries: $(find "$tmp/cache" -type f 2>/dev/null | wc -l))"
set -e

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ "$sanitize" = yes ] && [ "$device" = cuda ] && [ -x "$sanitizer" ]; then
  echo "== test suites under compute-sanitizer memcheck (a minute each)"
  for t in "${suites_list[@]}"; do
    [ -x "$t" ] || continue
    run_suite "$(basename "$t") memcheck" "$tmp/$(basename "$t")-memcheck.log" \
      'ERROR SUMMARY' 60 no "$sanitizer" --tool memcheck --leak-check full \
      --error-exitcode 3 "$t"
  done
elif [ "$sanitize" = yes ]; then
  echo "== no compute-sanitizer (or not a cuda run): memcheck skipped"
fi

echo "== summary"
for r in "${elements[@]}"; do echo "  $r"; done
for r in "${results[@]}"; do echo "  $r"; done
echo "  benchmark: $([ $bench_rc -eq 0 ] && echo ok || echo "failed ($bench_rc)")," \
  "reference: $([ $ref_rc -eq 0 ] && echo ok || echo 'not run')," \
  "kernels: $([ $kernels_rc -eq 0 ] && echo ok || echo "failed ($kernels_rc)")"
echo "  device: $device, $(( $(date +%s) - start )) s"
exit $failed
