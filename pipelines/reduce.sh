#!/usr/bin/env bash
# Reductions of one file, in one pipeline, checked against numpy:
#
#   pipelines/reduce.sh [build-dir] [in.npy]
#
# Without an input it makes a 1000003 x 4 float32 array (numpy needed). One
# gst-launch-1.0 run reads it three times and writes its total sum, the
# maximum of each column and the mean of each row; the plan-reduce messages
# printed by -m carry the same values.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
in=${2:-$work/a.npy}
# numpy as Debian installs it (python3-numpy).
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}

if [ -z "${2:-}" ]; then
  "$py" -c "
import numpy as np
rng = np.random.default_rng(0)
np.save('$in', (rng.standard_normal((1000003, 4)) * [1, 10, 100, 1000]).astype(np.float32))"
fi

gst-launch-1.0 -m planfilesrc location="$in" ! planreduce op=sum ! \
        planfilesink location="$work/sum.npy" \
    planfilesrc location="$in" ! planreduce op=max axis=0 ! \
        planfilesink location="$work/colmax.npy" \
    planfilesrc location="$in" ! planreduce op=mean axis=-1 post-messages=false ! \
        planfilesink location="$work/rowmean.npy" | grep 'plan-reduce' || true

"$py" -c "
import math
import numpy as np
a = np.load('$in')
total, colmax, rowmean = (np.load('$work/%s.npy' % n) for n in ('sum', 'colmax', 'rowmean'))
exact = math.fsum(a.astype(np.float64).ravel())
print('sum      %r (numpy %r, exact %r)' % (float(total), float(a.sum()), exact))
print('col max  %s' % colmax)
print('row mean shape %s, dtype %s' % (rowmean.shape, rowmean.dtype))
assert total.dtype == np.float32 and total.shape == ()
assert abs(float(total) - exact) <= abs(float(a.sum()) - exact)
assert np.array_equal(colmax, a.max(axis=0))
assert rowmean.shape == (a.shape[0],) and rowmean.dtype == np.float32
exact_rows = a.astype(np.float64).mean(axis=-1)
# float32 rounding of a float64 mean: at least as close as numpy's float32 mean.
assert np.all(np.abs(rowmean - exact_rows) <=
              np.abs(a.mean(axis=-1) - exact_rows) + np.spacing(np.abs(rowmean)))
print('all as numpy')"
