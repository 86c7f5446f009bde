#!/bin/sh
# meson install's last step: refresh the dynamic linker's cache when
# libplan was installed for real (no DESTDIR) by root into a directory
# ld.so.conf names, so that programs linked against it find it.
libdir=$1
[ -z "${DESTDIR:-}" ] || exit 0
[ "$(id -u)" = 0 ] || exit 0
command -v ldconfig >/dev/null 2>&1 || exit 0
if ldconfig -v -N 2>/dev/null | grep -q "^$libdir:"; then
  ldconfig
fi
exit 0
