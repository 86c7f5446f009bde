#!/usr/bin/env bash
# The installed headers as a third party compiles them, through the
# installed plan-1.0.pc (pkg-config must find it):
#  - every header on its own, in a C file that includes nothing else, with
#    gcc -std=c99 -Wall -Wextra -Wpedantic -Werror: the stable ones without
#    PLAN_USE_UNSTABLE_API, the unstable ones (those that say so) with it;
#  - each unstable header without PLAN_USE_UNSTABLE_API warns, naming it
#    (docs/api.md), and plan.h includes none of them then (it compiles
#    without a warning);
#  - in C++ (g++ -std=c++17, the same warnings), plan.h with every
#    unstable header, and a program that calls into libplan links (its
#    functions have C linkage);
#  - a plancustom kernel written in C++ with PLAN_CUSTOM_EXPORT exports
#    its symbol and version unmangled, as plancustom looks them up.
#
#   tests/install/headers.sh INCLUDEDIR/libplan
# (run from meson-install.sh, with PKG_CONFIG_PATH at the installed .pc)
set -euo pipefail
dir=${1:?the installed libplan/ include directory}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }

cflags=$(pkg-config --cflags plan-1.0)
warn=(-Wall -Wextra -Wpedantic -Werror)

headers=$(cd "$dir" && ls -- *.h)
[ -n "$headers" ] || fail "no headers in $dir"
jobs=()
for h in $headers; do
  [ "$h" = planreducer-steps-run.h ] && continue   # only through planreducer-steps.h
  base=${h%.h}
  printf '#include <libplan/%s>\n' "$h" > "$tmp/$base.c"
  kind=stable
  grep -Eq '^#ifndef PLAN_USE_UNSTABLE_API' "$dir/$h" && kind=unstable
  echo "$kind $h" >> "$tmp/list"
done

# One compile per header, two at a time.
check_one () {
  local kind=$1 h=$2; shift 2
  local base=${h%.h} out
  if [ "$kind" = stable ]; then
    gcc -std=c99 "${warn[@]}" "$@" -fsyntax-only "$tmp/$base.c" $cflags \
      > "$tmp/$base.log" 2>&1 || { echo "$h:"; cat "$tmp/$base.log"; return 1; }
  else
    gcc -std=c99 "${warn[@]}" "$@" -DPLAN_USE_UNSTABLE_API -fsyntax-only \
      "$tmp/$base.c" $cflags > "$tmp/$base.log" 2>&1 ||
      { echo "$h (with PLAN_USE_UNSTABLE_API):"; cat "$tmp/$base.log"; return 1; }
    if gcc -std=gnu99 -Wall -Werror -fsyntax-only "$tmp/$base.c" $cflags \
        > "$tmp/$base.warn" 2>&1; then
      echo "$h: the unstable header did not warn without PLAN_USE_UNSTABLE_API"
      return 1
    fi
    grep -q "define PLAN_USE_UNSTABLE_API" "$tmp/$base.warn" ||
      { echo "$h: not the unstable API's warning:"; cat "$tmp/$base.warn"; return 1; }
  fi
}
export -f check_one
export tmp cflags
export warn_flags="${warn[*]}"
# (arrays do not cross into xargs' shells: rebuild warn there)
if ! xargs -P 2 -L 1 bash -c 'warn=($warn_flags); check_one "$@"' _ \
    < "$tmp/list" > "$tmp/failures.txt" 2>&1; then
  cat "$tmp/failures.txt"
  fail "an installed header does not compile on its own (above)"
fi
n=$(wc -l < "$tmp/list")

# planreducer-steps-run.h on its own says which header to include.
printf '#include <libplan/planreducer-steps-run.h>\n' > "$tmp/run.c"
if gcc -fsyntax-only "$tmp/run.c" $cflags > "$tmp/run.log" 2>&1 ||
    ! grep -q 'include <libplan/planreducer-steps.h>' "$tmp/run.log"; then
  cat "$tmp/run.log"; fail "planreducer-steps-run.h on its own"
fi

# Every header that declares libplan functions gives them C linkage.
for h in $headers; do
  if grep -q '^PLAN_API' "$dir/$h" && ! grep -q '^G_BEGIN_DECLS' "$dir/$h"; then
    fail "$h declares PLAN_API functions outside G_BEGIN_DECLS (C++ would mangle them)"
  fi
done

# C++: everything, and a link. (g++ is no dependency of the project:
# without it, say so and stop here.)
if ! command -v g++ > /dev/null; then
  echo "installed headers: $n each compile on their own (C99, -Wpedantic), the unstable ones warn; no g++, so no C++ checks"
  exit 0
fi
cat > "$tmp/app.cpp" <<'EOF'
#define PLAN_USE_UNSTABLE_API
#include <libplan/plan.h>

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  plan_init ();
  return plan_dtype_get_size (plan_dtype_from_string ("float64")) == 8 ? 0 : 1;
}
EOF
g++ -std=c++17 "${warn[@]}" -o "$tmp/app" "$tmp/app.cpp" \
  $(pkg-config --cflags --libs plan-1.0) \
  -Wl,-rpath,"$(pkg-config --variable=libdir plan-1.0)" > "$tmp/app.log" 2>&1 ||
  { cat "$tmp/app.log"; fail "a C++ program with plan.h"; }
"$tmp/app" || fail "the C++ program"

# A C++ plancustom kernel: the symbol and its version, unmangled.
cat > "$tmp/twice.cpp" <<'EOF'
#include <libplan/plan.h>

PLAN_CUSTOM_EXPORT (twice)
{
  const float *in = static_cast<const float *> (chunk->inputs[0].data);
  float *out = static_cast<float *> (chunk->output->data);
  gsize n = chunk->n_rows * chunk->inputs[0].row_size / sizeof (float);

  for (gsize i = 0; i < n; i++)
    out[i] = 2 * in[i];
  return 0;
}
EOF
g++ -std=c++17 "${warn[@]}" -shared -fPIC -o "$tmp/libtwice.so" "$tmp/twice.cpp" \
  $(pkg-config --cflags --libs plan-1.0) > "$tmp/twice.log" 2>&1 ||
  { cat "$tmp/twice.log"; fail "a C++ plancustom kernel"; }
for s in twice twice_plan_custom_version; do
  nm -D --defined-only "$tmp/libtwice.so" | grep -q " $s\$" ||
    fail "the C++ kernel does not export '$s' (PLAN_CUSTOM_EXPORT without C linkage)"
done
echo "installed headers: $n each compile on their own (C99, -Wpedantic), the unstable ones warn, plan.h builds and links in C++, a C++ plancustom kernel exports its symbol"
