#!/usr/bin/env bash
# The Debian packages, from a clean copy of the tree: built with
# dpkg-buildpackage, checked with lintian, installed with apt-get, used
# with no variable set (gst-inspect-1.0, gst-launch-1.0 of a map pipeline,
# plan-launch --version and its manual, a C program through pkg-config,
# the seed example with /usr/bin/python3, each element's Doc-uri page),
# from /tmp, then purged. Runs as root on a machine it may change (CI):
# it installs into /usr and removes what it installed.
#
#   tests/install/debs.sh [OUTDIR]          OUTDIR keeps the .debs (default: a scratch one)
#   tests/install/debs.sh --prebuilt DIR    test the packages already built in DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
prebuilt=
if [ "${1:-}" = --prebuilt ]; then prebuilt=$2; out=$2; else out=${1:-$tmp/out}; fi
packages=(gstreamer1.0-plan libplan-1.0-0 libplan-1.0-dev gir1.2-plan-1.0
  python3-gstplan plan-tools)
cleanup () {
  # Whatever happened, leave no package of ours installed.
  local p left=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q installed && left+=("$p")
  done
  [ ${#left[@]} -eq 0 ] ||
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${left[@]}" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: the packages are installed into /usr"

# The tree as git sees it (tracked and new files, not the build
# directories), built where dpkg-buildpackage may write.
if [ -z "$prebuilt" ]; then
  mkdir -p "$tmp/build/gst-plan" "$out"
  (cd "$src" && git ls-files -co --exclude-standard -z) |
    (cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$tmp/build/gst-plan"
  echo "== dpkg-buildpackage -b -us -uc"
  (cd "$tmp/build/gst-plan" &&
    DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck ${DEB_BUILD_OPTIONS:-}" \
    dpkg-buildpackage -b -us -uc > "$tmp/build.log" 2>&1) ||
    { tail -n 60 "$tmp/build.log"; fail "dpkg-buildpackage"; }
  # The packaging tools' warnings (a substitution variable that nothing
  # defines, a dependency that is not needed) are defects of debian/.
  if grep -E '^(dpkg-[a-z]+|dh_[a-z0-9_]+): warning' "$tmp/build.log"; then
    fail "dpkg-buildpackage warned (above)"
  fi
  mv "$tmp/build"/*.deb "$tmp/build"/*.changes "$tmp/build"/*.buildinfo "$out"/
fi
ls "$out"
for p in "${packages[@]}"; do
  ls "$out/${p}_"*.deb >/dev/null 2>&1 || fail "no package $p"
done

echo "== lintian"
lintian --fail-on error,warning "$out"/*.changes ||
  fail "lintian"

echo "== apt-get install"
debs=()
for p in "${packages[@]}"; do debs+=("$(ls "$out/${p}_"*.deb)"); done
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "${debs[@]}" > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; fail "apt-get install"; }

clean=(env -i PATH=/usr/bin:/bin HOME="$tmp/home" GST_REGISTRY_1_0="$tmp/registry.bin")
mkdir -p "$tmp/home" "$tmp/run"
cd /tmp
"${clean[@]}" gst-inspect-1.0 planmap > "$tmp/planmap.txt" ||
  fail "gst-inspect-1.0 planmap"
"${clean[@]}" gst-inspect-1.0 plan > "$tmp/plan.txt"
# (/lib is /usr/lib: compare where the names lead)
plugin=$(readlink -f "$(dpkg -L gstreamer1.0-plan | grep '/libgstplan\.so$')")
loaded=$(sed -n 's/^  Filename *//p' "$tmp/plan.txt")
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$plugin" ] ||
  { cat "$tmp/plan.txt"; fail "gst-inspect-1.0 did not load the packaged plugin $plugin"; }
for e in $(sed -n 's/^  \([a-z0-9]*\): .*/\1/p' "$tmp/plan.txt"); do
  uri=$("${clean[@]}" gst-inspect-1.0 "$e" | sed -n 's/^  Doc-uri *//p')
  [ -f "${uri#file://}" ] || fail "$e: Doc-uri $uri is not installed"
done
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/run/in.npy', np.linspace(-1, 1, 3000, dtype=np.float64).reshape(-1, 3))"
"${clean[@]}" gst-launch-1.0 -q planfilesrc location="$tmp/run/in.npy" ! \
  planmap expr="sin(x) * 3" ! planfilesink location="$tmp/run/out.npy" ||
  fail "gst-launch-1.0 of a map pipeline"
/usr/bin/python3 -c "
import numpy as np
a = np.load('$tmp/run/in.npy'); b = np.load('$tmp/run/out.npy')
assert b.shape == a.shape and np.allclose(b, np.sin(a) * 3, rtol=1e-15), b"
version=$(dpkg-query -W -f '${Version}' plan-tools)
"${clean[@]}" plan-launch --version | grep -q "^plan-launch ${version%%-*} (gst-plan)" ||
  fail "plan-launch --version"
"${clean[@]}" man -w plan-launch >/dev/null || fail "no manual page for plan-launch"
"${clean[@]}" cc -Wall -Werror -o "$tmp/run/linkcheck" "$src/tests/install/linkcheck.c" \
  $("${clean[@]}" pkg-config --cflags --libs plan-1.0) || fail "a C program through pkg-config"
"${clean[@]}" "$tmp/run/linkcheck" | grep -q "made planmap0" || fail "the C program"
# The sim device's test hooks stay out of a library built without tests.
lib=$(dpkg -L libplan-1.0-0 | grep '/libplan-1\.0\.so\.0$' || true)
[ -n "$lib" ] || fail "libplan-1.0-0 has no libplan-1.0.so.0"
hooks=$(nm -D --defined-only "$lib" |
  grep -E ' (plan_device_sim_|plan_[a-z_]*_testing_)' || true)
[ -z "$hooks" ] || fail "the packaged libplan exports test hooks: $hooks"
# It exports exactly what its installed headers declare.
"${clean[@]}" /usr/bin/python3 "$src/tools/check-exports.py" --no-test-hooks \
  --api-doc "$src/docs/api.md" "$lib" $(dpkg -L libplan-1.0-dev | grep '\.h$') ||
  fail "the packaged libplan's exports are not its installed headers' declarations"
"${clean[@]}" /usr/bin/python3 "$src/pipelines/seed_example.py" cpu 20000 > "$tmp/seed.txt" 2>&1 &&
  grep -q "all match" "$tmp/seed.txt" || { cat "$tmp/seed.txt"; fail "the seed example"; }
"${clean[@]}" /usr/bin/python3 -c "
import gstplan
assert gstplan.__file__.startswith('/usr/lib/python3/dist-packages/'), gstplan.__file__"

echo "== apt-get purge"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${packages[@]}" > "$tmp/apt.log" 2>&1 ||
  { cat "$tmp/apt.log"; fail "apt-get purge"; }
for f in /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstplan.so /usr/bin/plan-launch \
    /usr/lib/python3/dist-packages/gstplan /usr/share/doc/gst-plan; do
  [ ! -e "$f" ] || fail "$f is left after purge"
done
echo "debs: built, lintian-clean, installed, used with no variable set and purged"
