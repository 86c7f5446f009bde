#!/usr/bin/env bash
# Renders the pipeline pictures in docs/graphs/ with plan-launch --graph
# (GStreamer's graph of the running pipeline, drawn by Graphviz's dot):
#
#   tools/doc-graphs.sh [build-dir]
#
# Each picture is of a real run on small arrays made here with numpy, in a
# temporary directory, so the file names in the pictures are the ones the
# docs use. Run it after changing an element's pads, caps or properties,
# and commit the SVGs with the change.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
launch="$build/tools/plan-launch"
out="$here/docs/graphs"
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}

if ! command -v dot >/dev/null; then
  echo "doc-graphs.sh: Graphviz's dot is needed (Debian: apt install graphviz)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$py" -c "
import numpy as np
rng = np.random.default_rng(0)
for name in 'ab':
    np.save(name + '.npy', rng.standard_normal((1000, 3)).astype(np.float32))
y, x = np.mgrid[-1:1:512j, -1:1:512j]
np.save('img.npy', np.exp(-(x**2 + y**2) / 0.1).astype(np.float32))"
mkdir -p "$out"

graph () {
  local name=$1; shift
  "$launch" -q --graph="$out/$name.svg" "$@"
  echo "docs/graphs/$name.svg"
}

graph tutorial-map planfilesrc location=a.npy ! planmap expr="2*x + 1" ! \
    planfilesink location=b.npy
graph map planmap name=m expr="2*x*y + sin(x)" ! planfilesink location=out.npy \
    planfilesrc location=a.npy ! m.sink_0 planfilesrc location=b.npy ! m.sink_1
graph reduce "$here/pipelines/reduce.plan" in=a.npy
graph laplacian "$here/pipelines/laplacian.plan" in=img.npy out=lap.npy
