#!/usr/bin/env bash
# Installs libplan into a scratch prefix, builds examplesquare.c against
# the installed headers and pkg-config file (as a third party would), and
# runs it in a pipeline checked against numpy.
set -euo pipefail
build=${PLAN_BUILD_DIR:?}
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT

# Against the uninstalled build first (docs/building.md): pkg-config finds
# plan-1.0 on build/meson-uninstalled, with the build tree's headers and
# library; the link leaves no symbol undefined, so -L names where
# libplan-1.0.so is.
uninstalled() {
  PKG_CONFIG_PATH="$build/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
    pkg-config "$@"
}
cc -Wall -Werror -shared -fPIC -Wl,--no-undefined -o "$tmp/libuninstalled.so" \
  "$src/examplesquare.c" $(uninstalled --cflags --libs plan-1.0)
[ "$(uninstalled --variable=pluginsdir plan-1.0)" = "$(cd "$build" && pwd)/plugins" ] || {
  echo "the uninstalled plan-1.0's pluginsdir is $(uninstalled --variable=pluginsdir plan-1.0)"; exit 1; }

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

# The unstable building blocks warn unless asked for, and plan.h leaves
# them out.
echo '#include <libplan/plannvrtc.h>' > "$tmp/unstable.c"
if cc -Werror -fsyntax-only "$tmp/unstable.c" $(pkg-config --cflags plan-1.0) 2> "$tmp/unstable.txt"; then
  echo "including plannvrtc.h without PLAN_USE_UNSTABLE_API did not warn"; exit 1
fi
grep -q "PLAN_USE_UNSTABLE_API" "$tmp/unstable.txt"
cc -Werror -fsyntax-only -DPLAN_USE_UNSTABLE_API "$tmp/unstable.c" $(pkg-config --cflags plan-1.0)
# The introspection data and the Python package are installed, and work
# from where they were installed.
typelib=$(find "$tmp/root" -name Plan-1.0.typelib | head -n1)
gir=$(find "$tmp/root" -name Plan-1.0.gir | head -n1)
pkg=$(find "$tmp/root" -path '*gstplan/__init__.py' | head -n1)
if grep -q '^#define HAVE_INTROSPECTION 1' "$build/config.h" 2>/dev/null || [ -f "$build/libplan/Plan-1.0.typelib" ]; then
  [ -n "$typelib" ] && [ -n "$gir" ] && [ -n "$pkg" ] || {
    echo "typelib ($typelib), gir ($gir) or gstplan ($pkg) not installed"; exit 1; }
  GI_TYPELIB_PATH=$(dirname "$typelib") LD_LIBRARY_PATH="$libdir" \
  PYTHONPATH=$(dirname "$(dirname "$pkg")") GST_PLUGIN_PATH_1_0="$GST_PLUGIN_PATH_1_0" \
    /usr/bin/python3 -c "
import numpy as np, gstplan
assert gstplan.__file__.startswith('$tmp'), gstplan.__file__
p = gstplan.Plan(); a = p.source(); p.map('x * 2', args=(a,), name='o')
r = p.realize(target='cpu').dispatch(a=np.arange(5.0)).result('o')
assert np.array_equal(r, np.arange(5.0) * 2), r
print('installed gstplan: ok')"
fi
for h in plan-testing.h plan-private.h; do
  if [ -n "$(find "$tmp/root" -name "$h")" ]; then echo "$h was installed"; exit 1; fi
done

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
