#!/usr/bin/env bash
# `meson install` works as installed: the build is installed into a scratch
# DESTDIR (the default prefix, /usr/local, moved under it), and everything
# then runs from /tmp with a fresh GStreamer registry and none of the
# project's variables: no LD_LIBRARY_PATH, GI_TYPELIB_PATH or PYTHONPATH
# to the build, and of GStreamer's only GST_PLUGIN_PATH, the one variable
# docs/install.md says a /usr/local install needs. Checks the plugin in
# gst-inspect-1.0 and gst-launch-1.0, each element's Doc-uri page, every
# .plan file of pipelines/ installed and one run by name by plan-launch, a C
# program built through the installed plan-1.0.pc, every installed header
# compiled on its own in C and C++ (headers.sh), and gstplan imported from
# where it was installed.
#
#   tests/install/meson-install.sh BUILD-DIR
set -euo pipefail
build=$(cd "${1:-${PLAN_BUILD_DIR:?}}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
# meson install records what it installed in the build's install-log.txt,
# the list `ninja -C BUILD uninstall` removes (docs/install.md): the
# scratch install below must not replace the list of a real one made from
# the same build directory, or uninstall would try the scratch files
# instead, gone by then, and leave the real ones in place.
log=$build/meson-logs/install-log.txt
if [ -f "$log" ]; then cp -p "$log" "$tmp/install-log.txt"; fi
restore_log () {
  if [ -f "$tmp/install-log.txt" ]; then cp -p "$tmp/install-log.txt" "$log"; else rm -f "$log"; fi
}
trap 'restore_log; rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }
# `ninja uninstall` (docs/install.md) removes every file of the install,
# after it was used: also what using it left (gstplan's bytecode, which
# Python writes beside a package it may write to), and the directories.
# It reads the build's install-log.txt, which lists the scratch install
# now (the real one's is put back on exit).
check_uninstall () {
  ninja -C "$build" uninstall > "$tmp/uninstall.txt" 2>&1 ||
    { cat "$tmp/uninstall.txt"; fail "ninja uninstall"; }
  if [ -e "$tmp/root" ]; then
    find "$tmp/root" | head -n 20
    fail "ninja uninstall left the above behind"
  fi
}

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions | /usr/bin/python3 -c \
  'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
root=$tmp/root$prefix
libdir=$(dirname "$(find "$root" -name 'libplan-1.0.so.0' | head -n1)")
[ -d "$libdir" ] || fail "libplan-1.0.so.0 was not installed"
plugindir=$libdir/gstreamer-1.0
[ -f "$plugindir/libgstplan.so" ] || fail "no plugin in $plugindir"
readelf -d "$plugindir/libgstplan.so" | grep -q 'R.*PATH.*\[\$ORIGIN/\.\.\]' ||
  fail "the plugin has no RUNPATH \$ORIGIN/.."

# A clean environment: what a user's shell has, nothing of the build.
clean=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp/home"
  GST_REGISTRY_1_0="$tmp/registry.bin")
mkdir -p "$tmp/home"
gst=("${clean[@]}" GST_PLUGIN_PATH="$plugindir")
cd /tmp

# The plugin loads (libplan found through RUNPATH) and says its version.
"${gst[@]}" gst-inspect-1.0 planmap > "$tmp/planmap.txt" 2>&1 ||
  { cat "$tmp/planmap.txt"; fail "gst-inspect-1.0 planmap"; }
version=$(sed -n "s/^  version : '\([^']*\)',$/\1/p" "$src/meson.build")
"${gst[@]}" gst-inspect-1.0 plan > "$tmp/plan.txt"
grep -q "Filename *$plugindir/libgstplan.so" "$tmp/plan.txt" ||
  fail "gst-inspect-1.0 plan did not load the installed plugin"
grep -Eq "^  Version +$version\$" "$tmp/plan.txt" || fail "no version $version"
# Every element's Doc-uri is a page that was installed.
elements=$(sed -n 's/^  \([a-z0-9]*\): .*/\1/p' "$tmp/plan.txt")
[ -n "$elements" ] || fail "no elements listed"
for e in $elements; do
  uri=$("${gst[@]}" gst-inspect-1.0 "$e" | sed -n 's/^  Doc-uri *//p')
  case "$uri" in
    file://"$prefix"/*) ;;
    *) fail "$e: Doc-uri '$uri' is not an installed file under $prefix" ;;
  esac
  [ -f "$tmp/root${uri#file://}" ] || fail "$e: $uri was not installed"
done

# gst-launch-1.0 of a map pipeline, checked against numpy.
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/in.npy', np.arange(1000, dtype=np.float32).reshape(-1, 4))"
"${gst[@]}" gst-launch-1.0 -q planfilesrc location="$tmp/in.npy" ! \
  planmap expr="x * 2 + 1" ! planfilesink location="$tmp/out.npy"
/usr/bin/python3 -c "
import numpy as np
a = np.load('$tmp/in.npy'); b = np.load('$tmp/out.npy')
assert b.dtype == a.dtype and np.array_equal(b, a * 2 + 1), b"

# A build with HDF5: the module libplan loads on first use was installed
# beside it, and an HDF5 file reads through it.
if grep -q '^#define HAVE_HDF5 1' "$build/config.h"; then
  [ -f "$libdir/plan-1.0/libplan-hdf5.so" ] || fail "no $libdir/plan-1.0/libplan-hdf5.so"
  if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
    /usr/bin/python3 -c "
import h5py, numpy as np
with h5py.File('$tmp/in.h5', 'w') as f:
    f['x'] = np.arange(1000.0)"
    "${gst[@]}" gst-launch-1.0 -q planfilesrc location="$tmp/in.h5" ! \
      planfilesink location="$tmp/h5.npy"
    /usr/bin/python3 -c "
import numpy as np
assert np.array_equal(np.load('$tmp/h5.npy'), np.arange(1000.0))"
  fi
fi

# A build with MPI: libplan does not link Open MPI; the module that does,
# loaded when a plan is sharded, was installed beside it, and a sharded
# run (one rank, outside mpirun) works through it.
if grep -q '^#define HAVE_MPI 1' "$build/config.h"; then
  [ -f "$libdir/plan-1.0/libplan-mpi.so" ] || fail "no $libdir/plan-1.0/libplan-mpi.so"
  if readelf -d "$libdir/libplan-1.0.so.0" | grep -q 'NEEDED.*libmpi'; then
    fail "libplan-1.0.so.0 links libmpi (it is the MPI module's to load)"
  fi
  "${gst[@]}" gst-launch-1.0 -q planfilesrc location="$tmp/in.npy" shard=mpi ! \
    planfilesink location="$tmp/mpi.npy" ||
    fail "a sharded run through the installed MPI module"
  cmp -s "$tmp/in.npy" "$tmp/mpi.npy" || fail "the sharded run's output differs"
fi

# plan-launch runs from where it was installed.
"${gst[@]}" "$root/bin/plan-launch" --version | grep -q "^plan-launch $version " ||
  fail "plan-launch --version"
# Every .plan file of the tree was installed where plan-launch looks for a
# name alone (docs/plan-launch.md; the directory it was built with is
# under PREFIX, not the scratch root, so the run points
# PLAN_PIPELINES_DIR at the scratch copy): wave.plan, two inputs into one
# stencil, checked against numpy.
pipelines=share/gst-plan/pipelines
"${gst[@]}" "$root/bin/plan-launch" --help | tr -d '\n ' |
  grep -qF "installedpipelines($prefix/$pipelines)" ||
  fail "plan-launch does not look for .plan files in $prefix/$pipelines"
for f in "$src"/pipelines/*.plan; do
  cmp -s "$f" "$root/$pipelines/${f##*/}" ||
    fail "pipelines/${f##*/} is not installed in $pipelines"
done
/usr/bin/python3 -c "
import numpy as np
np.save('$tmp/u.npy', np.arange(60.0).reshape(6, 10) ** 2)
np.save('$tmp/prev.npy', np.ones((6, 10)))"
"${gst[@]}" PLAN_PIPELINES_DIR="$root/$pipelines" "$root/bin/plan-launch" -q \
  wave.plan u="$tmp/u.npy" prev="$tmp/prev.npy" out="$tmp/wave.npy" > "$tmp/wave.txt" 2>&1 ||
  { cat "$tmp/wave.txt"; fail "plan-launch wave.plan, found by name"; }
/usr/bin/python3 -c "
import numpy as np
u = np.load('$tmp/u.npy'); p = np.load('$tmp/prev.npy'); w = np.pad(u, 1, 'symmetric')
lap = w[:-2, 1:-1] + w[2:, 1:-1] + w[1:-1, :-2] + w[1:-1, 2:] - 4 * u
assert np.allclose(np.load('$tmp/wave.npy'), 2 * u - p + 0.25 * lap)"
# The commands that name a .plan file where an installed copy tells a user
# (each file's usage line, the manual's examples) work as written from any
# directory: the name is one plan-launch finds, not a path into the tree.
# Each run without its values stops at the first one missing, having
# found the file.
for f in "$root/$pipelines"/*.plan; do
  named=$(sed -n 's/^#  *plan-launch \(.* \)\{0,1\}\([^ ]*\.plan\) .*/\2/p' "$f" | head -n 1)
  [ -n "$named" ] || fail "${f##*/} has no usage line naming it (plan-launch NAME.plan ...)"
  echo "$named"
done > "$tmp/named.txt"
"${gst[@]}" "$root/bin/plan-launch" --help | sed -n '/^EXAMPLES/,$p' |
  sed -n 's/^ *plan-launch \(.* \)\{0,1\}\([^ ]*\.plan\)\( .*\)\{0,1\}$/\2/p' > "$tmp/examples.txt"
[ -s "$tmp/examples.txt" ] || fail "plan-launch --help has no example of a .plan file"
cat "$tmp/examples.txt" >> "$tmp/named.txt"
while read -r named; do
  status=0
  "${gst[@]}" PLAN_PIPELINES_DIR="$root/$pipelines" "$root/bin/plan-launch" -q \
    "$named" < /dev/null > "$tmp/named.out" 2>&1 || status=$?
  if [ "$status" != 2 ] || ! grep -q "is not set" "$tmp/named.out"; then
    cat "$tmp/named.out"
    fail "'plan-launch $named', as the installed usage lines and manual write it, does not find the file"
  fi
done < "$tmp/named.txt"
# and its manual page, made from --help.
man -l "$root/share/man/man1/plan-launch.1" 2>/dev/null | grep -q "plan-launch - run a gst-plan pipeline" ||
  fail "no manual page for plan-launch"

# The .pc file: no requirement beyond GStreamer's and GLib's (Open MPI's
# development files need not be there), and a C program builds with it.
pc=$libdir/pkgconfig/plan-1.0.pc
if grep -Eq '^Requires.private:|ompi|mpi' "$pc"; then
  cat "$pc"; fail "plan-1.0.pc requires more than GStreamer and GLib"
fi
mkdir -p "$tmp/pc"
sed "s|^prefix=.*|prefix=$root|" "$pc" > "$tmp/pc/plan-1.0.pc"
pkgconf=("${clean[@]}" PKG_CONFIG_PATH="$tmp/pc")
# Nor does it change how programs are linked: no --export-dynamic (which
# gmodule-2.0 would bring) exporting every function of the program.
if "${pkgconf[@]}" pkg-config --libs plan-1.0 | grep -q 'export-dynamic'; then
  "${pkgconf[@]}" pkg-config --libs plan-1.0
  fail "pkg-config --libs plan-1.0 links programs with --export-dynamic"
fi
cc -Wall -Werror -o "$tmp/linkcheck" "$src/tests/install/linkcheck.c" \
  $("${pkgconf[@]}" pkg-config --cflags --libs plan-1.0) \
  -Wl,-rpath,"$("${pkgconf[@]}" pkg-config --variable=libdir plan-1.0)"
"${gst[@]}" "$tmp/linkcheck" | grep -q "made planmap0" || fail "the C program"
# Every installed header on its own (C99 -Wpedantic, C++17), the unstable
# ones' warning, a C++ plancustom kernel (tests/install/headers.sh).
"${pkgconf[@]}" "$src/tests/install/headers.sh" "$root/include/gstreamer-1.0/libplan" ||
  fail "the installed headers"
# The introspection data as a third party's own GIR finds it: through the
# .pc file's girdir (meson's gnome.generate_gir() reads it; here
# g-ir-compiler, for a GIR whose function returns a Plan.Array), and the
# typelib in its typelibdir.
if [ -f "$build/libplan/Plan-1.0.typelib" ]; then
  girdir=$("${pkgconf[@]}" pkg-config --variable=girdir plan-1.0)
  typelibdir=$("${pkgconf[@]}" pkg-config --variable=typelibdir plan-1.0)
  [ -n "$girdir" ] && [ -f "$girdir/Plan-1.0.gir" ] ||
    fail "pkg-config --variable=girdir plan-1.0 ('$girdir') does not hold Plan-1.0.gir"
  [ -n "$typelibdir" ] && [ -f "$typelibdir/Plan-1.0.typelib" ] ||
    fail "pkg-config --variable=typelibdir plan-1.0 ('$typelibdir') does not hold Plan-1.0.typelib"
  cat > "$tmp/Third-1.0.gir" <<'GIR'
<?xml version="1.0"?>
<repository version="1.2" xmlns="http://www.gtk.org/introspection/core/1.0"
            xmlns:c="http://www.gtk.org/introspection/c/1.0">
  <include name="Plan" version="1.0"/>
  <namespace name="Third" version="1.0" shared-library="libthird.so"
             c:identifier-prefixes="Third" c:symbol-prefixes="third">
    <function name="make_array" c:identifier="third_make_array">
      <return-value transfer-ownership="full">
        <type name="Plan.Array" c:type="PlanArray*"/>
      </return-value>
    </function>
  </namespace>
</repository>
GIR
  "${clean[@]}" g-ir-compiler --includedir="$girdir" -o "$tmp/Third-1.0.typelib" \
    "$tmp/Third-1.0.gir" > "$tmp/gir.txt" 2>&1 ||
    { cat "$tmp/gir.txt"; fail "a GIR that includes Plan-1.0, through the .pc file's girdir"; }
fi

# gstplan from where it was installed: the directory Debian's python3
# searches under the prefix, and nothing else set (it finds libplan, the
# typelib and the plugin itself).
pkg=$(find "$root" -path '*/gstplan/__init__.py' | head -n1)
if [ -z "$pkg" ]; then
  # Built without introspection: no typelib, no gstplan.
  [ ! -f "$build/libplan/Plan-1.0.typelib" ] || fail "gstplan was not installed"
  check_uninstall
  echo "meson install: plugin, Doc-uri pages, gst-launch, plan-launch and pkg-config work from $prefix (no introspection); ninja uninstall removes it all"
  exit 0
fi
pydir=$(dirname "$(dirname "$pkg")")
if [ "$prefix" = /usr/local ]; then
  want=$(/usr/bin/python3 -c 'import sys; print([p for p in sys.path if p.startswith("/usr/local/") and p.endswith("dist-packages")][0])')
  [ "$pydir" = "$root${want#/usr/local}" ] ||
    fail "gstplan in $pydir, not where /usr/bin/python3 looks ($want)"
fi
"${clean[@]}" PYTHONPATH="$pydir" /usr/bin/python3 "$src/pipelines/seed_example.py" cpu 20000 > "$tmp/seed.txt" 2>&1 ||
  { cat "$tmp/seed.txt"; fail "the seed example"; }
grep -q "all match" "$tmp/seed.txt" || { cat "$tmp/seed.txt"; fail "the seed example"; }
"${clean[@]}" PYTHONPATH="$pydir" /usr/bin/python3 -c "
import gstplan
assert gstplan.__file__.startswith('$pydir'), gstplan.__file__
from gi.repository import Gst
plugin = Gst.Registry.get().find_plugin('plan')
assert plugin.get_filename().startswith('$plugindir'), plugin.get_filename()"
# Another plan plugin known to GStreamer (here the build tree's, on
# GST_PLUGIN_PATH; a system one alike) gives way to the one installed with
# gstplan, and only one libplan is mapped after a plan has run; another
# plugin loaded before the import is an ImportError naming both.
"${clean[@]}" PYTHONPATH="$pydir" GST_PLUGIN_PATH="$build/plugins" /usr/bin/python3 -c "
import numpy as np, gstplan
from gi.repository import Gst
plugin = Gst.Registry.get().find_plugin('plan')
assert plugin.get_filename().startswith('$plugindir'), plugin.get_filename()
p = gstplan.Plan(); a = p.source(); p.map('x * 3', args=(a,), name='o')
r = p.realize(target='cpu').dispatch(a=np.arange(7.0)).result('o')
assert np.array_equal(r, np.arange(7.0) * 3), r
libs = {l.split()[-1] for l in open('/proc/self/maps') if '/libplan' in l}
assert len(libs) == 1 and libs.pop().startswith('$libdir/'), libs" > "$tmp/other.txt" 2>&1 ||
  { cat "$tmp/other.txt"; fail "gstplan with another plan plugin on GST_PLUGIN_PATH"; }
"${clean[@]}" PYTHONPATH="$pydir" GST_PLUGIN_PATH="$build/plugins" /usr/bin/python3 -c "
import gi; gi.require_version('Gst', '1.0')
from gi.repository import Gst
Gst.init(None); Gst.ElementFactory.make('planmap')
import gstplan" > "$tmp/loaded.txt" 2>&1 && fail "gstplan imported after another plan plugin was loaded"
tail -n 1 "$tmp/loaded.txt" | grep -q "^ImportError: gstplan runs with the plan plugin installed beside it ($plugindir/libgstplan.so), but this process had already loaded another one ($build/plugins/libgstplan.so)" ||
  { cat "$tmp/loaded.txt"; fail "the error of gstplan imported after another plan plugin was loaded"; }
check_uninstall
echo "meson install: plugin, Doc-uri pages, gst-launch, plan-launch, pkg-config and gstplan work from $prefix; ninja uninstall removes it all"
