#!/bin/sh
# cross-aarch64.sh - the Debian packages of the arm64 cross build and of its
# tests under qemu user mode, checked and (as root) installed: Debian's
# gcc-aarch64-linux-gnu, qemu-user-static and the arm64 multiarch -dev
# libraries beside the native ones.  Used by `make deps ARCH=aarch64` and
# `make test ARCH=aarch64` through mk/deps.sh.
#   sh mk/cross-aarch64.sh --install | --check-or-install | --list
#
# libwebsockets-dev:arm64 cannot be installed beside the amd64 one (their
# /usr/include/lws_config.h differ in LWS_INSTALL_LIBDIR only): its files are
# unpacked into $LWS_PREFIX instead, whose pkg-config file the Makefile puts
# first (the Makefile's ARCH=aarch64 part).  Its Requires (libcap, a private
# need of the shared library) is dropped.
LWS_PREFIX=${HS_CROSS_LWS:-/usr/local/lib/hookscope-cross/aarch64}
ARM_LIBS="libc6-dev libcapstone-dev libelf-dev libdw-dev libmsgpack-dev libunwind-dev libncurses-dev
libreadline-dev libcmocka-dev libcurl4-openssl-dev libssl-dev libwebsockets17 libdbus-1-dev
libsystemd-dev libc6-dbg"
PKGS="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static binfmt-support file
$(for p in $ARM_LIBS; do printf '%s:arm64 ' "$p"; done)"

mode=${1:---check-or-install}
if [ "$mode" = --list ]; then
	echo $PKGS
	exit 0
fi
if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: this is not a Debian-like system; the arm64 build needs an aarch64-linux-gnu" >&2
	echo "  cross compiler, qemu-aarch64 and the arm64 builds of: $ARM_LIBS" | fold -s -w 100 >&2
	exit 1
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
lws_pc=$LWS_PREFIX/lib/pkgconfig/libwebsockets.pc
if [ -z "$missing" ] && [ -f "$lws_pc" ]; then
	[ "$mode" = --install ] && echo "deps: all arm64 packages are installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing for ARCH=aarch64:$missing $([ -f "$lws_pc" ] || echo "(and $lws_pc)")" >&2
	echo "deps: install them with: sudo make deps ARCH=aarch64" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "deps: installing:$missing"
	dpkg --print-foreign-architectures | grep -qx arm64 || {
		dpkg --add-architecture arm64 && apt-get update -q >/dev/null
	} || { echo "deps: cannot add the arm64 architecture to dpkg" >&2; exit 1; }
	apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
		apt-get update -q >/dev/null &&
		apt-get install -y --no-install-recommends $missing
	} || { echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
fi

# libwebsockets-dev:arm64, unpacked beside (see the top).
if [ ! -f "$lws_pc" ]; then
	tmp=$(mktemp -d) || exit 1
	(cd "$tmp" && apt-get download -q libwebsockets-dev:arm64 >/dev/null) &&
		dpkg-deb -x "$tmp"/libwebsockets-dev_*_arm64.deb "$tmp/x" ||
		{ echo "deps: cannot fetch libwebsockets-dev:arm64" >&2; rm -rf "$tmp"; exit 1; }
	so=$(ls /usr/lib/aarch64-linux-gnu/libwebsockets.so.* 2>/dev/null | head -n 1)
	[ -n "$so" ] || { echo "deps: libwebsockets17:arm64 is not installed" >&2; exit 1; }
	mkdir -p "$LWS_PREFIX/lib/pkgconfig" "$LWS_PREFIX/include"
	cp -r "$tmp"/x/usr/include/. "$LWS_PREFIX/include/"
	ln -sf "$so" "$LWS_PREFIX/lib/libwebsockets.so"
	sed -e "s|^prefix=.*|prefix=$LWS_PREFIX|" -e 's|^libdir=.*|libdir=${prefix}/lib|' \
		-e 's|^includedir=.*|includedir=${prefix}/include|' -e '/^Requires/d' \
		"$tmp"/x/usr/lib/aarch64-linux-gnu/pkgconfig/libwebsockets.pc >"$lws_pc"
	rm -rf "$tmp"
	echo "deps: libwebsockets-dev:arm64 unpacked into $LWS_PREFIX"
fi
