#!/usr/bin/env bash
# The demo plan that `tools/bootstrap.sh demo` runs:
#
#   pipelines/demo.sh [build-dir]
#
# It makes a small array with numpy, copies it through a plan of
# planfilesrc ! planfilesink (read ahead and written behind on worker
# threads, put in place atomically), and checks the copy with numpy.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# numpy as Debian installs it (python3-numpy).
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}

echo "== making $work/in.npy: 1000003 x 3 float32 (numpy)"
"$py" -c "
import numpy as np
rng = np.random.default_rng(0)
np.save('$work/in.npy', rng.standard_normal((1000003, 3)).astype(np.float32))"

echo "== copy plan: planfilesrc location=in.npy ! planfilesink location=out.npy"
start=$(date +%s.%N)
gst-launch-1.0 -q planfilesrc location="$work/in.npy" ! \
    planfilesink location="$work/out.npy"
end=$(date +%s.%N)

echo "== checking out.npy with numpy"
"$py" -c "
import numpy as np
a, b = np.load('$work/in.npy'), np.load('$work/out.npy')
assert a.dtype == b.dtype and a.shape == b.shape, (b.dtype, b.shape)
assert np.array_equal(a, b)
print('copied %s %s (%.1f MiB) in %.3f s: identical' %
      (b.dtype, b.shape, b.nbytes / 2**20, $end - $start))"

echo "== shard plan: rows 500000-500009 only (offset=500000 length=10), raw output"
gst-launch-1.0 -q planfilesrc location="$work/in.npy" offset=500000 length=10 ! \
    planfilesink location="$work/shard.f32"
"$py" -c "
import numpy as np
a = np.load('$work/in.npy')
s = np.fromfile('$work/shard.f32', dtype=np.float32).reshape(-1, 3)
assert np.array_equal(s, a[500000:500010])
print('shard of %d rows matches a[500000:500010]' % len(s))"
echo "== demo done"
