#!/usr/bin/env bash
# npyparse and npymux against planfilesrc and planfilesink, on one .npy
# file, in one run:
#
#   tests/benchmarks/bench_npystream.sh [build-dir] [size-MiB] [runs]
#
# Defaults: build/, 256 MiB, 3 runs per pipeline (the best run counts).
# Reading: a sum of the whole array (planreduce op=sum) after planfilesrc,
# after filesrc ! npyparse (filesrc's 4 KiB blocks, and 1 MiB ones), and
# after fdsrc ! npyparse fed by cat through a pipe. Writing: a copy through planfilesrc into planfilesink, into
# npymux ! filesink, and into npymux ! fdsink writing into a pipe to cat.
# The input is read once beforehand, so every reader starts from the page
# cache; outputs are deleted between runs. Prints MiB/s and the ratio to
# planfilesrc (reading) or planfilesink (writing). Not run by `meson test`.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
size_mib=${2:-256}
runs=${3:-3}
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
launch="$build/tools/plan-launch -q"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-npystream-XXXXXX")
trap 'rm -rf "$work"' EXIT
in=$work/in.npy
out=$work/out.npy

py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
"$py" - "$in" "$size_mib" <<'PY'
import sys
import numpy as np
path, mib = sys.argv[1], int(sys.argv[2])
rows = mib * 2**20 // 16
a = np.random.default_rng(1).standard_normal((rows, 4), dtype=np.float32)
np.save(path, a)
PY
cat "$in" > /dev/null

# best_of NAME CHECK COMMAND: runs the shell COMMAND $runs times, prints
# and records the best throughput in MiB/s; CHECK=copy compares the output
# with the input.
declare -A best
best_of () {
  local name=$1 check=$2 cmd=$3
  local t b=""
  for _ in $(seq "$runs"); do
    rm -f "$out"
    t=$( { TIMEFORMAT=%R; time sh -c "$cmd" > /dev/null 2>&1; } 2>&1 )
    if [ "$check" = copy ] && ! cmp -s "$in" "$out"; then
      echo "$name: the output differs from the input" >&2
      exit 1
    fi
    if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
  done
  best[$name]=$(awk "BEGIN { printf \"%.0f\", $size_mib / $b }")
}

best_of planfilesrc sum "$launch planfilesrc location=$in ! planreduce op=sum ! fakesink"
best_of filesrc-npyparse sum "$launch filesrc location=$in ! npyparse ! planreduce op=sum ! fakesink"
best_of filesrc-1MiB-npyparse sum "$launch filesrc location=$in blocksize=1048576 ! npyparse ! planreduce op=sum ! fakesink"
best_of fdsrc-1MiB-npyparse sum "cat $in | $launch fdsrc fd=0 blocksize=1048576 ! npyparse ! planreduce op=sum ! fakesink"
best_of planfilesink copy "$launch planfilesrc location=$in ! planfilesink location=$out"
best_of npymux-filesink copy "$launch planfilesrc location=$in ! npymux ! filesink location=$out"
best_of npymux-fdsink copy "$launch planfilesrc location=$in ! npymux ! fdsink fd=1 | cat > $out"

echo "file: $size_mib MiB float32 (N, 4); best of $runs runs; MiB/s"
printf '%-22s %8s %8s\n' reading MiB/s ratio
for n in planfilesrc filesrc-npyparse filesrc-1MiB-npyparse fdsrc-1MiB-npyparse; do
  printf '%-22s %8s %8s\n' "$n" "${best[$n]}" \
    "$(awk "BEGIN { printf \"%.2f\", ${best[$n]} / ${best[planfilesrc]} }")"
done
printf '%-22s %8s %8s\n' writing MiB/s ratio
for n in planfilesink npymux-filesink npymux-fdsink; do
  printf '%-22s %8s %8s\n' "$n" "${best[$n]}" \
    "$(awk "BEGIN { printf \"%.2f\", ${best[$n]} / ${best[planfilesink]} }")"
done
