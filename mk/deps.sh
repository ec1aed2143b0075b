#!/bin/sh
# deps.sh - the Debian packages hookscope needs to build and test, checked and
# (as root) installed.  Used by `make deps`, `make test`, `make demo` and .ci/run.
#   sh mk/deps.sh --install            install whatever is missing (root)
#   sh mk/deps.sh --check-or-install   silent when all is there; else as --install
#   sh mk/deps.sh --list               print the package list
# ARCH=aarch64 in the environment (make deps ARCH=aarch64): the arm64 cross
# build and qemu-user instead (mk/cross-aarch64.sh, doc/android.md).
# libzydis-dev: the x86-64 engine's decoder; libcapstone-dev: the relocator
# tests' independent one.
BUILD_PKGS="gcc make pkg-config libc6-dev libwebsockets-dev libmsgpack-dev libncurses-dev
libreadline-dev libelf-dev libdw-dev libunwind-dev libcmocka-dev libzydis-dev libcapstone-dev libcurl4-openssl-dev"
TEST_PKGS="tmux socat jq iproute2 procps util-linux coreutils binutils libc6-dbg g++ clang uftrace linux-perf sqlite3
strace xz-utils libglib2.0-dev libuv1-dev
dbus-daemon libdbus-1-dev libsystemd-dev libgps-dev aapt unzip
mesa-utils mesa-utils-bin xvfb
python3 python3-jsonschema prometheus curl man-db systemd wget dnsmasq-base openssl valgrind heaptrack
clang-14 libclang-rt-14-dev libfuzzer-14-dev"
PKGS="$BUILD_PKGS $TEST_PKGS"
case ${ARCH:-} in
""|"$(uname -m)") ;;
aarch64) exec sh "$(dirname "$0")/cross-aarch64.sh" "$@" ;;
*) echo "deps: ARCH=$ARCH: unknown architecture (x86_64 or aarch64)" >&2; exit 1 ;;
esac

mode=${1:---check-or-install}
if [ "$mode" = --list ]; then
	echo $PKGS
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: this is not a Debian-like system; install the equivalents of:" >&2
	echo "  $PKGS" | fold -s -w 100 >&2
	echo "  (pkg-config modules: libwebsockets msgpack ncursesw readline libelf cmocka libcurl)" >&2
	exit 0
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && { [ "$mode" = --install ] && echo "deps: all packages are installed"; exit 0; }

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: install them with: sudo apt-get install$missing   (or run 'sudo make deps')" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists; an old list may name versions long gone.
apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
	apt-get update -q >/dev/null &&
	apt-get install -y --no-install-recommends $missing
} || { echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
