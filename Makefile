# Quick start: `make run` and `make test`. Both install libarchive-dev,
# libzstd-dev, zlib1g-dev, liblzma-dev, libisal-dev and pkg-config first
# when they are missing; `make test` also installs the programs the interop
# tests run (bsdtar, zip, unzip, python3, compressors, 7z).
SWIFT  ?= swift
SAMPLE ?= Fixtures/Travel.journal

.PHONY: setup setup-test fixtures build run install uninstall test test-fast test-asan test-tsan test-sanitizers test-slow docs docs-check clean

setup:
	@Tools/ensure-system-packages.sh

## setup, plus the programs the interop tests run.
setup-test:
	@Tools/ensure-system-packages.sh --test

## The sample's empty Drafts/ folder, which Git cannot store.
fixtures:
	@mkdir -p $(SAMPLE)/Drafts

build: setup
	$(SWIFT) build

## Builds, then prints the sample document's tree.
run: build fixtures
	$(SWIFT) run --skip-build wrapinspect dump "$(SAMPLE)"

## Where `make install` puts wrapinspect (DESTDIR for staging a package).
PREFIX ?= /usr/local
BINDIR := $(DESTDIR)$(PREFIX)/bin
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

## Builds wrapinspect for release, with the Swift runtime linked in (so it
## runs without the toolchain), and installs it with its completions for
## bash, zsh and fish, which the installed program writes.
install: setup
	$(SWIFT) build -c release --product wrapinspect --static-swift-stdlib
	install -d "$(BINDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/wrapinspect" "$(BINDIR)/wrapinspect"
	"$(BINDIR)/wrapinspect" --generate-completion-script bash > "$(BASHDIR)/wrapinspect"
	"$(BINDIR)/wrapinspect" --generate-completion-script zsh > "$(ZSHDIR)/_wrapinspect"
	"$(BINDIR)/wrapinspect" --generate-completion-script fish > "$(FISHDIR)/wrapinspect.fish"

uninstall:
	rm -f "$(BINDIR)/wrapinspect" "$(BASHDIR)/wrapinspect" "$(ZSHDIR)/_wrapinspect" "$(FISHDIR)/wrapinspect.fish"

## Extra flags for `swift test`: CI (.ci/run) makes warnings errors with
## SWIFTFLAGS="-Xswiftc -warnings-as-errors".
SWIFTFLAGS ?=
LSAN   := LSAN_OPTIONS=suppressions=$(CURDIR)/Tools/sanitizers/lsan.supp:print_suppressions=0
## ThreadSanitizer makes every process sleep 1 s before it exits
## (atexit_sleep_ms), a window for races with threads still running. The
## CLI tests start thousands of processes, and those seconds were most of
## the TSan run's time; 50 ms keeps a window.
TSAN   := TSAN_OPTIONS=atexit_sleep_ms=50

## Builds and runs every test, every one at full size.
test: setup-test fixtures
	$(SWIFT) test $(SWIFTFLAGS)

## The tests that run in the test process alone, no child process (no
## wrapinspect, bsdtar, 7z, Python or kills): the quick loop while
## working. Suites that start processes carry `.startsProcesses` and are
## left out; one that starts a process without it fails, naming the trait.
## Sizes are reduced, as in the sanitizer runs (Tests/TestSupport/TestSizes.swift).
## `make test` and CI still run everything.
test-fast: setup fixtures
	FWK_TEST_TIER=fast FWK_TEST_SIZES=reduced $(SWIFT) test $(SWIFTFLAGS) --skip '^(WrapInspectTests|NotesExampleTests|ReadmeExampleTests)\.'

## The suite under AddressSanitizer (memory errors and leaks, but for the
## ones outside our code that Tools/sanitizers/lsan.supp lists) and
## ThreadSanitizer (data races), each in its own build folder. CI runs it.
## Under AddressSanitizer every suite runs. Under ThreadSanitizer the
## in-process tier runs, and of the suites that start processes only those
## where threads meet (TSAN_PROCESS_SUITES: parallel unpack and pack
## workers, spools, progress, signals, shared documents, cat's two
## cores): the others run the same threads as the in-process tests, one
## command at a time, and took half of CI's ThreadSanitizer time. Sizes
## are cut where size proves nothing more
## (FWK_TEST_SIZES=reduced: lower limits, zip64 thresholds, 4 kills a kill
## test, bsdtar's listings of the corpus compared in the plain run only;
## see Tests/TestSupport/TestSizes.swift), and allocations are recorded
## with the fast unwinder. The full sizes and the precise unwinder are
## the slow tier, `make test-slow`.
test-sanitizers: test-asan test-tsan

test-asan: setup-test fixtures
	FWK_TEST_SIZES=reduced $(LSAN) \
		$(SWIFT) test $(SWIFTFLAGS) --sanitize=address --scratch-path .build-asan

TSAN_PROCESS_SUITES := ParallelUnpackTests StreamWriteTests ZipContainerReadTests SpoolLimitTests \
	UnpackProgressTests InterruptedArchiveTests InterruptedSaveTests ConcurrencyTests SharedSaveTests \
	DiskChangeTests ProgressTests InterruptionTests InterruptedUnpackTests VerifyStreamingTests \
	StreamInputTests EndlessStreamTests CatTests
empty :=
space := $(empty) $(empty)

test-tsan: setup-test fixtures
	FWK_TEST_TIER=fast FWK_TEST_SIZES=reduced $(TSAN) $(SWIFT) test $(SWIFTFLAGS) --sanitize=thread --scratch-path .build-tsan \
		--skip '^(WrapInspectTests|NotesExampleTests|ReadmeExampleTests)\.'
	FWK_TEST_SIZES=reduced $(TSAN) $(SWIFT) test $(SWIFTFLAGS) --sanitize=thread --scratch-path .build-tsan \
		--filter '^[A-Za-z]+\.($(subst $(space),|,$(strip $(TSAN_PROCESS_SUITES))))/'

## The slow tier (about 50 minutes on 2 cores; not run by CI): both
## sanitizer runs at full size, and AddressSanitizer with full stacks for
## every allocation (not the fast unwinder, which stops in libraries built
## without frame pointers), so that a leak's report says where it began.
test-slow: setup-test fixtures
	ASAN_OPTIONS=fast_unwind_on_malloc=0 FWK_TEST_SIZES=full $(LSAN) \
		$(SWIFT) test $(SWIFTFLAGS) --sanitize=address --scratch-path .build-asan
	FWK_TEST_SIZES=full $(TSAN) $(SWIFT) test $(SWIFTFLAGS) --sanitize=thread --scratch-path .build-tsan

## The DocC catalogs of the three libraries (Sources/*/*.docc) and their
## symbols' comments, as documentation archives in
## .build/plugins/Swift-DocC/outputs; docs-check fails on any warning (a
## link that leads nowhere), as CI runs it.
DOCC_TARGETS := --target FileWrapperKit --target FileWrapperArchive --target FileWrapperDocument

docs: setup
	$(SWIFT) package $(SWIFTFLAGS) generate-documentation $(DOCC_TARGETS)

docs-check: setup
	$(SWIFT) package $(SWIFTFLAGS) generate-documentation $(DOCC_TARGETS) --warnings-as-errors

clean:
	rm -rf .build .build-*
