#!/usr/bin/env bash
# The 5-point Laplacian of an image, file to file, with planstencil:
#
#   pipelines/laplacian.sh [build-dir] [in.npy] [out.npy]
#
# Without an input it makes a 1024 x 1024 float32 image of a Gaussian bump
# (numpy needed), writes its Laplacian to lap.npy in a temporary directory,
# and checks it against scipy.ndimage.correlate when scipy is there.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
in=${2:-$work/img.npy}
out=${3:-$work/lap.npy}
# numpy and scipy as Debian installs them (python3-numpy, python3-scipy).
py=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}

if [ -z "${2:-}" ]; then
  "$py" -c "
import numpy as np
y, x = np.mgrid[-1:1:1024j, -1:1:1024j]
np.save('$in', np.exp(-(x**2 + y**2) / 0.1).astype(np.float32))"
fi

gst-launch-1.0 -q planfilesrc location="$in" ! \
    planstencil window="_ n _; w c e; _ s _" expr="n + s + e + w - 4*c" \
        boundary=nearest ! \
    planfilesink location="$out"

"$py" -c "
import numpy as np
lap = np.load('$out')
print('laplacian: shape %s, dtype %s, min %.6f, max %.6f' %
      (lap.shape, lap.dtype, lap.min(), lap.max()))
try:
    from scipy import ndimage
except ImportError:
    raise SystemExit(0)
img = np.load('$in').astype(np.float64)
want = ndimage.correlate(img, [[0, 1, 0], [1, -4, 1], [0, 1, 0]], mode='nearest')
err = np.abs(lap - want).max()
print('largest difference from scipy.ndimage.correlate: %.3g' % err)
raise SystemExit(0 if err < 1e-5 else 1)"
