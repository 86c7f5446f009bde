#!/usr/bin/env bash
# Installs libplan into a scratch prefix, builds examplesquare.c against
# the installed headers and pkg-config file (as a third party would), and
# runs it in a pipeline checked against numpy.
set -euo pipefail
build=${PLAN_BUILD_DIR:?}
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/root" -name plan-1.0.pc | head -n1)
[ -n "$pc" ] || { echo "plan-1.0.pc was not installed"; exit 1; }
# The scratch install lives under $tmp/root: point the installed .pc file's
# prefix there (GStreamer's own .pc files stay as they are).
mkdir -p "$tmp/pc"
sed "s|^prefix=|prefix=$tmp/root|" "$pc" > "$tmp/pc/plan-1.0.pc"
export PKG_CONFIG_PATH="$tmp/pc"
libdir=$(dirname "$(find "$tmp/root" -name 'libplan-1.0.so' | head -n1)")

cc -Wall -Werror -shared -fPIC -o "$tmp/libgstexamplesquare.so" \
  "$src/examplesquare.c" $(pkg-config --cflags --libs plan-1.0)

export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_PATH_1_0="$tmp:${GST_PLUGIN_PATH_1_0:-}"
export GST_REGISTRY_1_0="$tmp/registry.bin"
# The test environment loads only known source modules; add the example (its PACKAGE).
export GST_PLUGIN_LOADING_WHITELIST="${GST_PLUGIN_LOADING_WHITELIST:+$GST_PLUGIN_LOADING_WHITELIST:}examplesquare"

/usr/bin/python3 -c "import numpy as np; np.save('$tmp/in.npy', np.linspace(-3, 3, 1001, dtype=np.float32).reshape(-1, 7)[:143])"
gst-inspect-1.0 examplesquare > "$tmp/inspect.txt"
grep -q "Squares every element" "$tmp/inspect.txt"
gst-launch-1.0 -q planfilesrc location="$tmp/in.npy" blocksize=100 ! examplesquare ! \
  planfilesink location="$tmp/out.npy"
/usr/bin/python3 - "$tmp" <<'PY'
import sys, numpy as np
d = sys.argv[1]
a = np.load(d + '/in.npy'); b = np.load(d + '/out.npy')
assert b.shape == a.shape and b.dtype == a.dtype, (b.shape, b.dtype)
assert np.array_equal(b, a * a)
print('examplesquare: %d x %d float32 squared, matches numpy' % a.shape)
PY
