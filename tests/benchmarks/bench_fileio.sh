#!/usr/bin/env bash
# Copy throughput of planfilesrc ! planfilesink against cp and against
# GStreamer's filesrc ! filesink, on one file, in one run:
#
#   tests/benchmarks/bench_fileio.sh [build-dir] [size-MiB] [runs]
#       [--sweep]
#
# Defaults: build/, 1024 MiB, 3 runs per copier (the best run counts).
# --sweep also times planfilesrc blocksize x max-chunks combinations, to
# choose the defaults. The input is written to disk, dropped from the page
# cache and read back once beforehand (tests/benchmarks/benchcache.py), so
# that every copier starts from the page cache as it holds a file read from
# disk; outputs are synced (untimed) and
# deleted between runs so one run's write-back does not slow the next.
# Needs about 2 x size of free space in $TMPDIR (default /tmp). Not run by
# `meson test`.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
size_mib=${2:-1024}
runs=${3:-3}
sweep=false
for a in "$@"; do [ "$a" = --sweep ] && sweep=true; done
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-fileio-XXXXXX")
trap 'rm -rf "$work"' EXIT
in=$work/in.npy
out=$work/out.npy

py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
"$py" - "$in" "$size_mib" <<'PY'
import sys
import numpy as np
path, mib = sys.argv[1], int(sys.argv[2])
rows = mib * 2**20 // 64
with open(path, 'wb') as f:
    np.lib.format.write_array_header_1_0(
        f, {'descr': '<f4', 'fortran_order': False, 'shape': (rows, 16)})
    block = np.arange(16 << 16, dtype=np.float32).reshape(-1, 16)
    for start in range(0, rows, len(block)):
        f.write(block[:rows - start].tobytes())
PY
bytes=$(stat -c %s "$in")
"$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import benchcache; benchcache.settle(sys.argv[2:])' \
  "$here/tests/benchmarks" "$in"
sync

# best_of NAME COMMAND...: runs COMMAND $runs times, prints and records the
# best throughput in MiB/s.
declare -A best
best_of () {
  local name=$1; shift
  local t b=""
  for _ in $(seq "$runs"); do
    rm -f "$out"
    sync
    t=$( { TIMEFORMAT=%R; time "$@" > /dev/null 2>&1; } 2>&1 )
    if ! cmp -s "$in" "$out"; then
      echo "$name: the copy differs from the input" >&2
      exit 1
    fi
    if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
  done
  rm -f "$out"
  sync
  best[$name]=$(awk "BEGIN { printf \"%.0f\", $bytes / 1048576 / ($b > 0 ? $b : 0.001) }")
  printf '%-48s %8.2f s %8s MiB/s\n' "$name" "$b" "${best[$name]}"
}

echo "copying $((bytes >> 20)) MiB, best of $runs runs, warm page cache"
best_of "cp" cp "$in" "$out"
best_of "filesrc ! filesink" gst-launch-1.0 -q filesrc location="$in" ! \
  filesink location="$out"
best_of "planfilesrc ! planfilesink" gst-launch-1.0 -q planfilesrc \
  location="$in" ! planfilesink location="$out"
best_of "planfilesrc io-mode=read ! planfilesink" gst-launch-1.0 -q \
  planfilesrc io-mode=read location="$in" ! planfilesink location="$out"

if $sweep; then
  for mode in read mmap; do
    for bs in 262144 1048576 4194304 8388608; do
      for mc in 2 4 8; do
        best_of "planfilesrc io-mode=$mode blocksize=$bs max-chunks=$mc" \
          gst-launch-1.0 -q planfilesrc location="$in" io-mode=$mode \
          blocksize=$bs max-chunks=$mc ! \
          planfilesink location="$out" max-pending=$mc
      done
    done
  done
fi

awk -v p="${best[planfilesrc ! planfilesink]}" -v c="${best[cp]}" \
    -v f="${best[filesrc ! filesink]}" 'BEGIN {
  printf "ratio plan / cp:                 %.2f (target >= 0.9)\n", p / c
  printf "ratio plan / filesrc ! filesink: %.2f (target >= 1.1)\n", p / f
}'
