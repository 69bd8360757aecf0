# ag — watch AI coding agents. `make` builds bin/, `make test` runs every test
# that needs only Go, tmux and this machine; `make e2e` runs the real agent CLIs.
GO       ?= go
# No version of its own: the go command stamps the module version from git
# (a tag, else v0.0.0-<time>-<commit>, +dirty), the same for make and go
# install, and every program's --version prints it.
LDFLAGS  := -s -w
PROGRAMS := $(notdir $(wildcard cmd/ag-*))
CACHE    ?= $(CURDIR)/.cache

.PHONY: all build test e2e e2e-newest bench fuzz man run cross vet clean install uninstall picture pgo demo

all: build
	@:

# Programs run once per hook, status line or prompt, where process start-up
# is most of the run, start with profstackdepth=0: Go otherwise takes one
# heap-profile sample while starting (a stack walk through the pclntab and a
# 1.4 MB bucket table, ~0.1 ms here) even when nothing can read the profile.
# //go:debug does not know the setting, so it is added to the default the go
# command computed (go install builds them without it).
FASTSTART := ag-hook ag-detect

# The linker writes a program through a memory map, which leaves the file in
# the page cache as 4 KB pages; a copy written with cp sits there in large
# folios, and a process maps those with far fewer faults: ag-hook starts
# ~0.3 ms sooner (doc/performance.md). So programs are linked into $(STAGE) and
# copied into bin/, each renamed into place so a hook that starts meanwhile
# runs the old file or the new one, never half of one.
STAGE := bin/.stage

# What the programs are built from: a no-op make links nothing. The git
# index is there so --version follows a commit that changed no source.
SOURCES := $(shell find cmd filters providers contrib -type f \( -name '*.go' -o -name '*.js' \
	-o -name '*.jq' -o -name '*.pgo' \) ! -name '*_test.go') go.mod go.sum Makefile \
	$(wildcard $(shell git rev-parse -q --git-path index 2>/dev/null))
BINS := $(addprefix bin/,$(PROGRAMS))

build: $(BINS)
	@:

$(BINS) &: $(SOURCES)
	@echo "go build: $(PROGRAMS) -> bin/"
	@mkdir -p $(STAGE)
	@$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(STAGE)/ $(addprefix ./cmd/,$(filter-out $(FASTSTART),$(PROGRAMS)))
	@for p in $(FASTSTART); do \
	  d=$$($(GO) list -f '{{.DefaultGODEBUG}}' ./cmd/$$p) || exit 1; \
	  f="$(LDFLAGS) -X runtime.godebugDefault=$${d:+$$d,}profstackdepth=0"; \
	  $(GO) build -trimpath -ldflags "$$f" -o $(STAGE)/ ./cmd/$$p || exit 1; \
	done
	@for p in $(PROGRAMS); do cp $(STAGE)/$$p bin/.$$p.new && mv -f bin/.$$p.new bin/$$p || exit 1; done
	@rm -rf $(STAGE)

vet:
	@$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }

# Unit, table, golden, fuzz-seed and t/ script tests, vet and gofmt first.
# -parallel 8: t's tests mostly wait (on tmux, timers, subprocesses), and
# go test runs as many parallel tests at once as there are cores, two
# here. go test's own vet is off (go vet ./... ran, every check); its -json goes
# through t/internal/testsum: a line per package, what failed, and a
# closing line with passed, failed and skipped counts (the skipped named).
test: build
	@t0=$$(date +%s); $(MAKE) --no-print-directory vet && echo "go vet, gofmt: ok ($$(($$(date +%s) - t0)) s)" && \
	  $(GO) test -vet=off -parallel 8 -json ./... | AG_TEST_START=$$t0 $(GO) run ./t/internal/testsum/cmd/testsum

# Against the real agent CLIs (installed from npm into $(CACHE)) and a fake model server.
# Needs tmux and npm (the registry must answer: a failed install fails loudly).
e2e: build
	$(GO) vet -tags e2e ./t/e2e/
	AG_E2E_CACHE=$(CACHE) $(GO) test -tags e2e -count=1 -v -timeout 25m ./t/e2e/

# The same e2e with every agent CLI lifted to the newest version on npm
# (t/e2e/newest.go: AG_E2E_NEWEST; installed beside the pinned ones).
e2e-newest: build
	$(GO) vet -tags e2e ./t/e2e/
	AG_E2E_NEWEST=1 AG_E2E_CACHE=$(CACHE) $(GO) test -tags e2e -count=1 -v -timeout 25m ./t/e2e/

# Go benchmarks of the hot paths, then whole-program figures (and their
# table), the second run even when the first fails. Both read the
# generated corpora in $(CACHE) (BenchmarkCorpus the one the second makes).
bench: build
	@st=0; AG_E2E_CACHE=$(CACHE) $(GO) test -run '^$$' -bench . -benchmem ./... || st=1; \
	AG_BIN=$(CURDIR)/bin AG_E2E_CACHE=$(CACHE) $(GO) test -tags bench -count=1 -v -timeout 45m ./t/bench/ || st=1; \
	exit $$st

# Profile-guided optimisation: the go command builds a main package with
# the default.pgo beside it, so ag-tail and ag-fold (a replay's two
# stages) are built from cmd/ag-tail/default.pgo and cmd/ag-fold/default.pgo
# (a few per cent of a replay's CPU time; doc/performance.md). make pgo
# makes the two again, from a replay of a generated 200 MB history; run it
# when their hot paths change.
PGO_CORPUS := $(CACHE)/claude-corpus-v2-seed1-200mb
PGO_HOME   := $(CACHE)/pgo-home
pgo: build
	@test -f $(PGO_CORPUS)/.complete || { rm -rf $(PGO_CORPUS) && \
	  $(GO) run ./t/internal/gencorpus/cmd/gencorpus $(PGO_CORPUS) 200 && touch $(PGO_CORPUS)/.complete; }
	AG_PGO_CORPUS=$(PGO_CORPUS) $(GO) test -run '^$$' -bench Once -benchtime 20x -cpuprofile cmd/ag-tail/default.pgo -o $(CACHE)/pgo.test ./cmd/ag-tail
	@mkdir -p $(PGO_HOME)
	env HOME=$(PGO_HOME) AG_DIR=$(PGO_HOME)/.ag CLAUDE_CONFIG_DIR=$(PGO_CORPUS) bin/ag-tail --once > $(CACHE)/pgo-events.ndjson
	AG_PGO_EVENTS=$(CACHE)/pgo-events.ndjson $(GO) test -run '^$$' -bench Snapshot -benchtime 20x -cpuprofile cmd/ag-fold/default.pgo -o $(CACHE)/pgo.test ./cmd/ag-fold
	@rm -f $(CACHE)/pgo.test
	$(MAKE) build

FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

man: build
	@mkdir -p bin/man
	@for p in $(filter-out ag-hook-setup,$(PROGRAMS)); do bin/$$p --man > bin/man/$$p.1; done
	@echo "man pages in bin/man/"

# Programs, ag-pipeline, man pages, the tmux plugin and prompt snippets and
# the login unit (systemd; launchd on macOS) under PREFIX, with the unit
# running the programs from there. See contrib/install.sh.
PREFIX ?= $(HOME)/.local
INSTALL_VARS = PREFIX BINDIR MANDIR DATADIR UNITDIR LAUNCHDIR OS DESTDIR
install: build man
	@$(foreach v,$(INSTALL_VARS),$(if $($(v)),$(v)='$($(v))')) sh contrib/install.sh install bin

# ag's hooks out of every agent first (or nothing is removed), then the
# files install wrote; it says what stays. PURGE=1: the spool and state too.
uninstall:
	@$(foreach v,$(INSTALL_VARS),$(if $($(v)),$(v)='$($(v))')) sh contrib/install.sh uninstall $(if $(PURGE),purge)

# ag at work with no agent installed, no desktop, no network: a tmux server
# of its own, scripted agents, the real pipeline, plugin, prompt and popup.
# F12 leaves and takes it all down (contrib/demo/ag-demo).
demo: build
	@contrib/demo/ag-demo bin

# The README's picture, doc/ag.png: a real tmux session with ag's pipeline,
# captured (needs tmux, aha and chromium; see doc/picture.sh).
picture: build
	doc/picture.sh bin doc/ag.png

# The login pipeline in the foreground, as contrib/systemd and contrib/launchd
# run it: ag-tail --follow | ag-detect --watch --all --panes | ag-fold --tmux |
# ag-notify | ag-keys. ARGS go to
# ag-notify (make run ARGS='--backend dbus'). Ctrl-C ends it quietly: this
# shell waits for the pipeline (trap :) instead of dying with it, and its
# exit 130 is no error of make's.
run: build
	@trap : INT; PATH="$(CURDIR)/bin:$$PATH" contrib/ag-pipeline $(ARGS) || test $$? -eq 130

cross:
	for os in linux darwin; do for arch in amd64 arm64; do \
	  GOOS=$$os GOARCH=$$arch $(GO) build -o /dev/null ./... || exit 1; done; done

clean:
	rm -rf bin
