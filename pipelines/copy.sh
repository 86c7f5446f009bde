#!/usr/bin/env bash
# Copies an array file, or one shard of it, in bounded memory:
#
#   pipelines/copy.sh IN OUT [planfilesrc properties...]
#
#   pipelines/copy.sh big.npy copy.npy
#   pipelines/copy.sh big.npy part3.npy offset=3000000 length=1000000
#   pipelines/copy.sh data.f32 data.npy dtype=float32 shape="(, 3)"
#
# OUT is .npy when it ends in .npy, raw otherwise. The plan is
#   planfilesrc location=IN ... ! planfilesink location=OUT
# with reading ahead and writing behind on their own threads; OUT appears
# only when the copy is complete. PLAN_BUILD_DIR (default build/) selects
# an uninstalled build.
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
build=${PLAN_BUILD_DIR:-$here/build}
if [ -d "$build/plugins" ]; then
  export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi
in=$1 out=$2
shift 2
exec gst-launch-1.0 -q planfilesrc location="$in" "$@" ! \
    planfilesink location="$out"
