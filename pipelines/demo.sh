#!/usr/bin/env bash
# The demo plan that `tools/bootstrap.sh demo` runs:
#
#   pipelines/demo.sh [build-dir]
#
# It makes two arrays with numpy and runs one plan over them:
#
#   a.npy ─ planfilesrc ─┐
#                        planmap "2*x*y + sin(x)" ─ tee ─ planfilesink out.npy
#   b.npy ─ planfilesrc ─┘                            └─ planreduce op=sum
#
# then a copy of a row shard, and checks every result with numpy.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# numpy as Debian installs it (python3-numpy).
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}

echo "== making a.npy and b.npy: 2000003 x 3 float32 each (numpy)"
"$py" -c "
import numpy as np
rng = np.random.default_rng(0)
for name in 'ab':
    np.save('$work/%s.npy' % name, rng.standard_normal((2000003, 3)).astype(np.float32))"

echo "== map and reduce plan:"
plan=(planmap name=m 'expr=2*x*y + sin(x)' ! tee name=t
  ! queue ! planfilesink location="$work/out.npy"
  t. ! queue ! planreduce op=sum ! fakesink async=false
  planfilesrc location="$work/a.npy" ! m.sink_0
  planfilesrc location="$work/b.npy" ! m.sink_1)
echo "   gst-launch-1.0 -m ${plan[*]}"
start=$(date +%s.%N)
gst-launch-1.0 -m "${plan[@]}" > "$work/log"
end=$(date +%s.%N)
sum=$(sed -n 's/.*plan-reduce.*value=(double)\([^,;]*\).*/\1/p' "$work/log")
echo "   planreduce posted sum = $sum"

echo "== checking with numpy"
"$py" -c "
import math
import numpy as np
a, b = np.load('$work/a.npy'), np.load('$work/b.npy')
out = np.load('$work/out.npy')
want = 2 * a * b + np.sin(a)
assert out.dtype == np.float32 and out.shape == a.shape, (out.dtype, out.shape)
err = np.max(np.abs(out - want) / (np.abs(2 * a * b) + 1))
assert err < 1e-6, err
exact = math.fsum(out.ravel().astype(np.float64))
assert abs(float('$sum') - exact) <= 1e-6 * abs(exact) + 1e-3, ('$sum', exact)
print('out.npy = 2*a*b + sin(a): %s %s, max relative error %.1e vs numpy' % (out.dtype, out.shape, err))
print('sum(out) = %s (math.fsum of the file: %.9g)' % ('$sum', exact))
print('the plan read %.0f MiB and wrote %.0f MiB in %.2f s' %
      ((a.nbytes + b.nbytes) / 2**20, out.nbytes / 2**20, $end - $start))"

echo "== shard plan: rows 500000-500009 only (offset=500000 length=10), raw output"
gst-launch-1.0 -q planfilesrc location="$work/a.npy" offset=500000 length=10 ! \
    planfilesink location="$work/shard.f32"
"$py" -c "
import numpy as np
a = np.load('$work/a.npy')
s = np.fromfile('$work/shard.f32', dtype=np.float32).reshape(-1, 3)
assert np.array_equal(s, a[500000:500010])
print('shard of %d rows matches a[500000:500010]' % len(s))"
echo "== demo done"
