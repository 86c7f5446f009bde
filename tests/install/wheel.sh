#!/usr/bin/env bash
# pip install . : the wheel, built from a clean copy of the tree with
# meson-python (Debian's python3-mesonpy, without build isolation, so that
# nothing is downloaded), installed into a fresh venv made with
# --system-site-packages (PyGObject and numpy from Debian), and the seed
# example run with the venv's python from /tmp with no variable set; then
# the same wheel in a venv without system packages, where import gstplan
# must fail with an error that names the missing package.
#
#   tests/install/wheel.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/gst-plan" "$tmp/dist" "$tmp/home"
(cd "$src" && git ls-files -co --exclude-standard -z) |
  (cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$tmp/gst-plan"
clean=(env -i PATH=/usr/bin:/bin HOME="$tmp/home" GST_REGISTRY_1_0="$tmp/registry.bin")

echo "== pip wheel"
"${clean[@]}" /usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"${clean[@]}" "$tmp/venv/bin/python" -m pip wheel --no-build-isolation --no-deps \
  --no-index -w "$tmp/dist" "$tmp/gst-plan" > "$tmp/pip.log" 2>&1 ||
  { tail -n 60 "$tmp/pip.log"; fail "pip wheel"; }
whl=$(ls "$tmp/dist"/gstplan-*.whl)
/usr/bin/python3 - "$whl" "$(pkg-config --exists hdf5 && echo hdf5)" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for want in ("gstplan/__init__.py", "gstplan/_installed.py",
             "gstplan/_lib/libplan.so",
             "gstplan/_lib/gstreamer-1.0/libgstplan.so",
             "gstplan/_lib/girepository-1.0/Plan-1.0.typelib"):
    assert want in names, (want, names)
# Built with HDF5 where its development files are: its module beside
# libplan, which libplan loads on first use.
if sys.argv[2] == "hdf5":
    assert "gstplan/_lib/plan-1.0/libplan-hdf5.so" in names, names
print("wheel:", sys.argv[1].rsplit("/", 1)[-1], len(names), "files")
PY

echo "== pip install into a venv with system site packages"
"${clean[@]}" "$tmp/venv/bin/python" -m pip install --no-index "$whl" > "$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log"; fail "pip install"; }
cd /tmp
"${clean[@]}" "$tmp/venv/bin/python" "$src/pipelines/seed_example.py" cpu 20000 > "$tmp/seed.txt" 2>&1 &&
  grep -q "all match" "$tmp/seed.txt" || { cat "$tmp/seed.txt"; fail "the seed example"; }
"${clean[@]}" "$tmp/venv/bin/python" -c "
import gstplan
from gi.repository import Gst
assert gstplan.__file__.startswith('$tmp/venv/'), gstplan.__file__
f = Gst.Registry.get().find_plugin('plan').get_filename()
assert f.startswith('$tmp/venv/'), f
print('venv: gstplan and its plugin from', '$tmp/venv')"

if pkg-config --exists hdf5 && /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  "${clean[@]}" "$tmp/venv/bin/python" -c "
import gstplan, h5py, numpy as np
from gi.repository import Gst
with h5py.File('$tmp/in.h5', 'w') as f:
    f['x'] = np.arange(100.0)
p = Gst.parse_launch('planfilesrc location=$tmp/in.h5 ! planfilesink location=$tmp/h5.npy')
p.set_state(Gst.State.PLAYING)
m = p.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                   Gst.MessageType.EOS | Gst.MessageType.ERROR)
p.set_state(Gst.State.NULL)
assert m.type == Gst.MessageType.EOS, m.parse_error()
assert np.array_equal(np.load('$tmp/h5.npy'), np.arange(100.0))
print('venv: an HDF5 file read through the HDF5 module')" ||
    fail "reading an HDF5 file in the venv"
fi

echo "== a venv without system packages"
"${clean[@]}" /usr/bin/python3 -m venv "$tmp/bare"
"${clean[@]}" "$tmp/bare/bin/python" -m pip install --no-index --no-deps "$whl" > "$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log"; fail "pip install --no-deps"; }
if "${clean[@]}" "$tmp/bare/bin/python" -c "import gstplan" > "$tmp/bare.txt" 2>&1; then
  fail "import gstplan worked without PyGObject"
fi
tail -n 1 "$tmp/bare.txt" | grep -q "^ImportError: gstplan needs PyGObject.*python3-gi.*--system-site-packages" ||
  { cat "$tmp/bare.txt"; fail "the error does not name python3-gi"; }
[ "$(wc -l < "$tmp/bare.txt")" -le 8 ] || { cat "$tmp/bare.txt"; fail "a traceback from deep inside"; }

echo "== another plan plugin on GST_PLUGIN_PATH (the bare venv's copy)"
# Built with another libplan file: gstplan must run with its own plugin,
# and one libplan only is mapped after a plan has run.
other=$(dirname "$(find "$tmp/bare" -path '*/gstplan/_lib/gstreamer-1.0/libgstplan.so')")
[ -d "$other" ] || fail "no plugin in the bare venv"
"${clean[@]}" GST_PLUGIN_PATH="$other" "$tmp/venv/bin/python" -c "
import numpy as np, gstplan
from gi.repository import Gst
f = Gst.Registry.get().find_plugin('plan').get_filename()
assert f.startswith('$tmp/venv/'), f
p = gstplan.Plan(); a = p.source(); p.map('x + 1', args=(a,), name='o')
r = p.realize(target='cpu').dispatch(a=np.arange(5.0)).result('o')
assert np.array_equal(r, np.arange(5.0) + 1), r
libs = {l.split()[-1] for l in open('/proc/self/maps') if '/libplan' in l}
assert len(libs) == 1 and libs.pop().startswith('$tmp/venv/'), libs
print('venv: its own plugin and libplan, with another plan plugin on GST_PLUGIN_PATH')" ||
  fail "gstplan with another plan plugin on GST_PLUGIN_PATH"
echo "wheel: built, installed into a venv and used with no variable set; without PyGObject a clear error"
