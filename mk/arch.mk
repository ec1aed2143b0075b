# arch.mk - the target architecture (included by the Makefile first).
#   make ARCH=aarch64          arm64 cross build into build-aarch64/ with
#                              Debian's gcc-aarch64-linux-gnu (make deps ARCH=aarch64)
#   make CC=clang ARCH=aarch64 the same with clang --target=aarch64-linux-gnu
# Unset (or the build machine's own) is the native build.  The arm64
# binaries run under qemu-aarch64 here (make test ARCH=aarch64:
# tests/arm64/setup.sh; doc/android.md).
HOST_ARCH := $(shell uname -m)
ARCH      ?= $(HOST_ARCH)
ifeq ($(ARCH),$(HOST_ARCH))
CROSS     :=
else ifeq ($(ARCH),aarch64)
CROSS     := aarch64-linux-gnu-
CROSS_TRIPLE := aarch64-linux-gnu
# libwebsockets-dev:arm64 lives apart (mk/cross-aarch64.sh).
CROSS_LWS ?= /usr/local/lib/hookscope-cross/aarch64
PKG_CONFIG := PKG_CONFIG_LIBDIR=$(CROSS_LWS)/lib/pkgconfig:/usr/lib/$(CROSS_TRIPLE)/pkgconfig:/usr/share/pkgconfig pkg-config
ifeq ($(origin CC),default)
CC        := $(CROSS)gcc
else ifneq ($(filter clang%,$(notdir $(firstword $(CC)))),)
override CC := $(CC) --target=$(CROSS_TRIPLE)
endif
AR        := $(CROSS)ar
else
$(error ARCH=$(ARCH): hookscope builds for x86_64 and aarch64)
endif
# The hook engine's back-end folder (collectors/engine/ARCH/), and the
# instruction decoder it links: Zydis on x86-64; arm64's fixed-width
# encodings are decoded by the back-end itself.
ENGINE_ARCH := $(ARCH)
ENGINE_LIBS_x86_64  := -lZydis
ENGINE_LIBS_aarch64 :=
ENGINE_LIBS := $(ENGINE_LIBS_$(ARCH))
# The default output folder of a cross build is its own.
O_ARCH    := $(if $(CROSS),-$(ARCH))
export ARCH
# Unit tests of one architecture's code only.
# test-attach: the injector is x86-64 only (attach refuses elsewhere).
UNIT_ONLY_x86_64  := tests/unit/test-hook-x86.c tests/unit/test-timing-vec.c tests/unit/test-attach.c
UNIT_ONLY_aarch64 := tests/unit/test-hook-arm64.c
UNIT_OTHER_ARCH   := $(foreach a,x86_64 aarch64,$(if $(filter $(a),$(ARCH)),,$(UNIT_ONLY_$(a))))
