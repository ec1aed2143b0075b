# hookscope - GNU Makefile.  See README.md and doc/architecture.md.
#
#   make                 build everything into $(O) (default build/)
#   make SAN=asan|ubsan|tsan   sanitizer build into build-$(SAN)/
#   make CC=clang        build with clang
#   make ARCH=aarch64    arm64 cross build into build-aarch64/ (mk/arch.mk)
#   make test            build, then run the whole test suite (ARCH=aarch64: the
#                        arm64 suite under qemu-aarch64, tests/arm64/)
#   make demo            build, start hookscoped with the demo target, open the TUI
#   make bench           benchmarks (tests/bench)
#   make fuzz            libFuzzer targets (tests/fuzz), FUZZ_SECONDS each (default 60)
#   make deps            install the Debian packages the build and tests need
#   make install         PREFIX=/usr/local DESTDIR=

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
DATADIR   ?= $(PREFIX)/share/hookscope
MANDIR    ?= $(PREFIX)/share/man
PCDIR     ?= $(LIBDIR)/pkgconfig
UNITDIR   ?= $(PREFIX)/lib/systemd/system
DESTDIR   ?=

SAN       ?=
CC        ?= cc
PKG_CONFIG ?= pkg-config
include mk/arch.mk
O         ?= build$(O_ARCH)$(if $(SAN),-$(SAN))

# Missing pkg-config modules must not spam errors before `make deps` ran.
pc = $(shell $(PKG_CONFIG) $(1) $(2) 2>/dev/null)

SAN_FLAGS_asan  := -fsanitize=address,undefined -fno-omit-frame-pointer
SAN_FLAGS_ubsan := -fsanitize=undefined -fno-sanitize-recover=undefined
SAN_FLAGS_tsan  := -fsanitize=thread
SAN_FLAGS := $(SAN_FLAGS_$(SAN))
ifneq ($(SAN),)
ifeq ($(SAN_FLAGS),)
$(error SAN must be asan, ubsan or tsan)
endif
# A sanitized agent needs its runtime first in LD_PRELOAD (see daemon/run.c).
SAN_RT_asan := libasan.so
SAN_RT_tsan := libtsan.so
ifneq ($(SAN_RT_$(SAN)),)
SAN_DEFS := -DHS_SAN_RUNTIME='"$(shell $(CC) -print-file-name=$(SAN_RT_$(SAN)))"'
endif
endif

OPT       ?= -O2 -g
WARN      := -Wall -Wextra -Werror
CPPFLAGS_ALL := -D_GNU_SOURCE -Iprotocol \
	-DHS_VERSION='"$(VERSION)"' \
	-DHS_AGENT_PATH='"$(LIBDIR)/hookscope/libhookscope.so"' \
	-DHS_THEMES_DIR='"$(DATADIR)/themes"' $(SAN_DEFS) \
	-DHS_DATA_DIR='"$(DATADIR)"'
CFLAGS_ALL := -std=c11 $(OPT) $(WARN) -fPIC -pthread $(SAN_FLAGS) $(CFLAGS)
LDFLAGS_ALL := -pthread $(SAN_FLAGS) $(LDFLAGS)

MSGPACK_CFLAGS := $(call pc,--cflags,msgpack)
MSGPACK_LIBS   := $(or $(call pc,--libs,msgpack),-lmsgpackc)
LWS_CFLAGS     := $(call pc,--cflags,libwebsockets)
LWS_LIBS       := $(or $(call pc,--libs,libwebsockets),-lwebsockets)
ELF_CFLAGS     := $(call pc,--cflags,libelf)
ELF_LIBS       := $(or $(call pc,--libs,libelf),-lelf)
CURSES_CFLAGS  := $(call pc,--cflags,ncursesw)
CURSES_LIBS    := $(or $(call pc,--libs,ncursesw),-lncursesw)
RL_CFLAGS      := $(call pc,--cflags,readline)
RL_LIBS        := $(or $(call pc,--libs,readline),-lreadline)
CMOCKA_CFLAGS  := $(call pc,--cflags,cmocka)
CMOCKA_LIBS    := $(or $(call pc,--libs,cmocka),-lcmocka)
CAPSTONE_LIBS  := $(or $(call pc,--libs,capstone),-lcapstone)
DW_LIBS        := $(or $(call pc,--libs,libdw),-ldw)
UNWIND_LIBS    := -lunwind-generic -lunwind
CURL_CFLAGS    := $(call pc,--cflags,libcurl)
CURL_LIBS      := $(or $(call pc,--libs,libcurl),-lcurl)
# Unit tests load libcurl (and its TLS and other libraries) only when they
# use the daemon's upload code: a test of dlopen/dlclose sees no stranger.
CURL_AS_NEEDED := -Wl,--push-state,--as-needed $(CURL_LIBS) -Wl,--pop-state

PROTO_SRCS  := $(wildcard protocol/*.c)
# The agent: one folder per module (collectors/MODULE/, the engine's
# architecture back-end in collectors/engine/ARCH/).  Public headers are in
# collectors/include/; a module's own headers are on its own include path
# only, so reaching into another module's internals does not compile.
# Every folder of collectors/ but include/ is a module: a new collector's
# folder needs no line here.
AGENT_MODS  := $(filter-out include,$(notdir $(patsubst %/,%,$(wildcard collectors/*/))))
AGENT_INC   := -Icollectors/include
AGENT_SRCS  := $(foreach m,$(AGENT_MODS),$(wildcard collectors/$(m)/*.c)) \
	$(wildcard collectors/engine/$(ENGINE_ARCH)/*.c)
# Unit tests and fuzz targets test module internals: every module's path.
TEST_AGENT_INC := $(AGENT_INC) $(addprefix -Icollectors/,$(AGENT_MODS)) \
	-Icollectors/engine/$(ENGINE_ARCH)
DAEMON_SRCS := $(filter-out daemon/main.c,$(wildcard daemon/*.c))
TUI_SRCS    := $(filter-out tui/main.c,$(wildcard tui/*.c))
UNIT_SRCS   := $(filter-out $(UNIT_OTHER_ARCH),$(wildcard tests/unit/test-*.c))
TOOL_SRCS   := $(wildcard tests/tools/*.c)
APP_DIRS    := $(patsubst tests/apps/%/,%,$(dir $(wildcard tests/apps/*/*.c)))
BENCH_SRCS  := $(wildcard tests/bench/*.c)

obj = $(patsubst %.c,$(O)/obj/%.o,$(1))

PROTO_LIB  := $(O)/lib/libhsproto.a
AGENT_LIB  := $(O)/lib/libhsagent.a
DAEMON_LIB := $(O)/lib/libhsdaemon.a
TUI_LIB    := $(O)/lib/libhstui.a
AGENT_SO   := $(O)/libhookscope.so
DAEMON_BIN := $(O)/hookscoped
TUI_BIN    := $(O)/hookscope
UNIT_BINS  := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
TOOL_BINS  := $(patsubst tests/tools/%.c,$(O)/tools/%,$(TOOL_SRCS))
APP_BINS   := $(foreach a,$(sort $(APP_DIRS)),$(O)/apps/$(a))
BENCH_BINS := $(patsubst tests/bench/%.c,$(O)/bench/%,$(BENCH_SRCS))
THEMES     := $(patsubst themes/%,$(O)/themes/%,$(wildcard themes/*.theme))

.PHONY: all test demo bench deps install uninstall clean check-deps fuzz fuzz-build
all: $(AGENT_SO) $(DAEMON_BIN) $(TUI_BIN) $(APP_BINS) $(TOOL_BINS) $(UNIT_BINS) $(THEMES)

# ---- objects ----
$(O)/obj/protocol/%.o: protocol/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(MSGPACK_CFLAGS) -MMD -MP -c $< -o $@
# The module of collectors/MOD/... is MOD; the back-end also sees the
# engine's internal headers (it implements them), and the engine sees the
# chosen back-end's folder (hook_layout.h: its block layout), by name only.
agent_mod = $(word 2,$(subst /, ,$(1)))
agent_inc = -Icollectors/$(1) $(if $(filter engine,$(1)),-Icollectors/engine/$(ENGINE_ARCH))
$(O)/obj/collectors/%.o: collectors/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(AGENT_INC) $(call agent_inc,$(call agent_mod,$<)) $(CFLAGS_ALL) $(MSGPACK_CFLAGS) $(ELF_CFLAGS) -fvisibility=hidden -MMD -MP -c $< -o $@
# The C half of the hook engine's stubs keeps off the vector registers,
# which the stubs do not save (collectors/engine/hook.h).
$(O)/obj/collectors/engine/hook_hot.o $(O)/obj/collectors/timing/timing_hot.o \
    $(O)/obj/collectors/timing/timing_site.o: CFLAGS_ALL += -mgeneral-regs-only
# The allocator wrappers walk the frame-pointer chain from their own frame.
$(O)/obj/collectors/memory/%.o: CFLAGS_ALL += -fno-omit-frame-pointer
$(O)/obj/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(MSGPACK_CFLAGS) $(LWS_CFLAGS) $(CURL_CFLAGS) -MMD -MP -c $< -o $@
$(O)/obj/tui/%.o: tui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(MSGPACK_CFLAGS) $(LWS_CFLAGS) $(CURSES_CFLAGS) $(RL_CFLAGS) -MMD -MP -c $< -o $@
$(O)/obj/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(TEST_AGENT_INC) -Idaemon -Itui $(CFLAGS_ALL) $(MSGPACK_CFLAGS) $(LWS_CFLAGS) $(CMOCKA_CFLAGS) -MMD -MP -c $< -o $@
# The demo and other target apps are what the agent times: -finstrument-functions.
$(O)/obj/apps/%.o: tests/apps/%.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(AGENT_INC) -std=c11 -O2 -g $(WARN) -pthread $(SAN_FLAGS) $(CFLAGS) -finstrument-functions -MMD -MP -c $< -o $@

# ---- libraries and programs ----
# Archives are made anew: an object whose source was removed must not stay in them.
$(PROTO_LIB): $(call obj,$(PROTO_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(AGENT_LIB): $(call obj,$(AGENT_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(DAEMON_LIB): $(call obj,$(DAEMON_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(TUI_LIB): $(call obj,$(TUI_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# --wrap: attach mode (collectors/agent/agent_attach.c, agent_detach.c) answers the
# agent's getenv from its attach file and records the agent's pthread keys.
AGENT_WRAP := -Wl,--wrap=getenv -Wl,--wrap=pthread_key_create
# The version script: libhookscope.so exports only what the modules list in
# their collectors/MODULE/exports (the hooks instrumented code calls, the
# public API, the wrappers); everything else (the protocol library, xmalloc,
# ...) stays local, so it can neither interpose on the target's symbols nor
# be interposed by them.
AGENT_EXPORTS := $(wildcard collectors/*/exports)
$(O)/libhookscope.map: $(AGENT_EXPORTS)
	@mkdir -p $(@D)
	@{ echo '{ global:'; sed -e 's/#.*//' -e '/^[[:space:]]*$$/d' -e 's/[[:space:]]*$$/;/' $^; \
	  echo 'local: *; };'; } > $@
$(AGENT_SO): $(call obj,$(AGENT_SRCS)) $(PROTO_LIB) $(O)/libhookscope.map
	$(CC) -shared $(if $(SAN),,-Wl,-z,defs) -Wl,-soname,libhookscope.so $(AGENT_WRAP) \
		-Wl,--version-script=$(O)/libhookscope.map $(LDFLAGS_ALL) -o $@ \
		$(call obj,$(AGENT_SRCS)) $(PROTO_LIB) $(MSGPACK_LIBS) $(ELF_LIBS) $(UNWIND_LIBS) $(ENGINE_LIBS) -ldl
$(DAEMON_BIN): $(O)/obj/daemon/main.o $(DAEMON_LIB) $(PROTO_LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LWS_LIBS) $(MSGPACK_LIBS) $(DW_LIBS) $(ELF_LIBS) $(CURL_LIBS)
$(TUI_BIN): $(O)/obj/tui/main.o $(TUI_LIB) $(PROTO_LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LWS_LIBS) $(MSGPACK_LIBS) $(CURSES_LIBS) $(RL_LIBS)

$(O)/tests/%: $(O)/obj/tests/unit/%.o $(AGENT_LIB) $(DAEMON_LIB) $(TUI_LIB) $(PROTO_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CMOCKA_LIBS) $(LWS_LIBS) $(MSGPACK_LIBS) $(ELF_LIBS) $(CURSES_LIBS) $(RL_LIBS) $(DW_LIBS) $(UNWIND_LIBS) $(ENGINE_LIBS) $(CAPSTONE_LIBS) $(CURL_AS_NEEDED) -ldl
$(O)/tools/%: $(O)/obj/tests/tools/%.o $(PROTO_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LWS_LIBS) $(MSGPACK_LIBS)
$(O)/bench/%: $(O)/obj/tests/bench/%.o $(PROTO_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(MSGPACK_LIBS)
# The redraw bench (tests/bench/daemon.sh) drives the TUI's own drawing.
$(O)/bench/tui-redraw: $(O)/obj/tests/bench/tui-redraw.o $(TUI_LIB) $(PROTO_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LWS_LIBS) $(MSGPACK_LIBS) $(CURSES_LIBS) $(RL_LIBS)

.SECONDARY:
.SECONDEXPANSION:
$(O)/apps/%: $$(addsuffix .o,$$(addprefix $(O)/obj/apps/$$*/,$$(basename $$(notdir $$(wildcard tests/apps/$$*/*.c)))))
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -rdynamic -o $@ $^ $(APP_LIBS_$*)

# Libraries of the test apps that need some (APP_LIBS_<dir>, and their headers).
APP_LIBS_dbusapp := $(call pc,--libs,dbus-1 libsystemd)

$(O)/obj/apps/dbusapp/%.o: CFLAGS += $(call pc,--cflags,dbus-1 libsystemd)
APP_LIBS_netcurl := $(call pc,--libs,libcurl)

# The startup app links a library with a slow constructor and dlopens
# another one, both next to it (tests/apps/startup/lib/).
APP_LIBS_startup := -ldl -Wl,-rpath,'$$ORIGIN'
$(O)/apps/startup: $(O)/apps/libhs-slowinit.so | $(O)/apps/libhs-plugin.so
$(O)/apps/libhs-%.so: tests/apps/startup/lib/%.c tests/apps/startup/lib/delay.h
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -std=c11 -O2 -g $(WARN) -fPIC -shared $(SAN_FLAGS) $(CFLAGS) -Wl,-soname,libhs-$*.so -o $@ $<

# memleak's stacks are compared with valgrind's: frame pointers all the way.
$(O)/obj/apps/memleak/%.o: CFLAGS += -fno-omit-frame-pointer

$(O)/themes/%: themes/%
	@mkdir -p $(@D)
	cp $< $@

# ---- the two commands ----
# Both check the Debian packages first and install them (as root) if missing.
check-deps:
	@sh mk/deps.sh --check-or-install

deps:
	@sh mk/deps.sh --install

test: check-deps
	@$(MAKE) --no-print-directory all $(if $(CROSS),,fuzz-build)
	@O=$(O) SAN=$(SAN) sh tests/run.sh

demo: check-deps
	@$(MAKE) --no-print-directory all
	@O=$(O) sh mk/demo.sh

bench: all $(BENCH_BINS)
	@O=$(O) sh tests/bench/run.sh

# ---- fuzzing (tests/fuzz, doc/architecture.md "Hardening") ----
# Every tests/fuzz/fuzz-NAME.c is a libFuzzer target built with clang from
# protocol/*.c plus the optional FUZZ_SRCS_NAME sources and FUZZ_LIBS_NAME
# libraries (one line each, below); its seed
# corpus is tests/fuzz/corpus/NAME/.  Independent of SAN: always
# -fsanitize=fuzzer,address,undefined.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BINS    := $(patsubst %,$(O)/fuzz/fuzz-%,$(FUZZ_NAMES))
FUZZ_FLAGS   := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -g -O1 -std=c11 -Wall -Wextra -Werror -pthread
FUZZ_SRCS_elf    := collectors/symbols/symbols.c collectors/symbols/symbols_elf.c collectors/agent/agent_scratch.c \
	collectors/symbols/symbols_map.c collectors/symbols/symbols_debug.c
FUZZ_LIBS_elf    := $(ELF_LIBS) $(DW_LIBS)
FUZZ_SRCS_map    := $(FUZZ_SRCS_elf)
FUZZ_LIBS_map    := $(FUZZ_LIBS_elf)
FUZZ_SRCS_theme  := tui/theme.c
FUZZ_LIBS_theme  := $(CURSES_LIBS)
FUZZ_SRCS_binder := collectors/ipc/ipc_binder.c
FUZZ_SRCS_power-table   := collectors/power/power_table.c
FUZZ_SRCS_power-profile := daemon/power_profile.c

fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@O=$(O) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh

FUZZ_HDRS := $(wildcard protocol/*.h collectors/*/*.h tui/*.h tests/fuzz/*.h)
$(O)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(PROTO_SRCS) $$(FUZZ_SRCS_$$*) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS_ALL) $(TEST_AGENT_INC) -Itui -Idaemon $(FUZZ_FLAGS) $(MSGPACK_CFLAGS) $(ELF_CFLAGS) \
		$(LWS_CFLAGS) $(CURSES_CFLAGS) -o $@ $< $(PROTO_SRCS) $(FUZZ_SRCS_$*) \
		$(MSGPACK_LIBS) $(FUZZ_LIBS_$*) -ldl

# ---- install ----
# Data files installed into $(DATADIR) besides the themes (power adds its
# API table here).
INSTALL_DATA := collectors/power-apis.table daemon/power_profile.sample.xml
# @VAR@ in a template -> the install paths.
subst_paths = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' -e 's|@VERSION@|$(VERSION)|g'

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/hookscope $(DESTDIR)$(INCDIR) \
		$(DESTDIR)$(DATADIR)/themes $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(PCDIR) $(DESTDIR)$(UNITDIR)
	install -m 755 $(DAEMON_BIN) $(TUI_BIN) $(DESTDIR)$(BINDIR)/
	install -m 755 $(AGENT_SO) $(DESTDIR)$(LIBDIR)/hookscope/
	install -m 644 collectors/include/hookscope.h $(DESTDIR)$(INCDIR)/
	install -m 644 themes/*.theme $(DESTDIR)$(DATADIR)/themes/
	$(if $(INSTALL_DATA),install -m 644 $(INSTALL_DATA) $(DESTDIR)$(DATADIR)/)
	install -m 644 doc/hookscope.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 doc/hookscoped.8 $(DESTDIR)$(MANDIR)/man8/
	$(subst_paths) collectors/agent/hookscope.pc.in >$(DESTDIR)$(PCDIR)/hookscope.pc
	$(subst_paths) daemon/hookscoped.service.in >$(DESTDIR)$(UNITDIR)/hookscoped.service
	chmod 644 $(DESTDIR)$(PCDIR)/hookscope.pc $(DESTDIR)$(UNITDIR)/hookscoped.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hookscoped $(DESTDIR)$(BINDIR)/hookscope \
		$(DESTDIR)$(INCDIR)/hookscope.h $(DESTDIR)$(MANDIR)/man8/hookscoped.8 \
		$(DESTDIR)$(MANDIR)/man1/hookscope.1 $(DESTDIR)$(PCDIR)/hookscope.pc \
		$(DESTDIR)$(UNITDIR)/hookscoped.service
	rm -rf $(DESTDIR)$(LIBDIR)/hookscope $(DESTDIR)$(DATADIR)

clean:
	rm -rf build build-*

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)
