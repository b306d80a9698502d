# Quick start: `make run` and `make test`. Both install libarchive-dev,
# libzstd-dev, zlib1g-dev and pkg-config first when they are missing;
# `make test` also installs the programs the interop tests run (bsdtar, zip,
# unzip, python3, compressors).
SWIFT  ?= swift
SAMPLE ?= Fixtures/Travel.journal

.PHONY: setup setup-test fixtures build run test test-asan test-tsan test-sanitizers clean

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

## Builds and runs every test.
test: setup-test fixtures
	$(SWIFT) test

## The whole suite under AddressSanitizer (memory errors and leaks, but
## for the ones outside our code that Tools/sanitizers/lsan.supp lists) and
## ThreadSanitizer (data races), each in its own build folder. CI runs it.
test-sanitizers: test-asan test-tsan

## Full stacks for every allocation (not the fast unwinder, which stops in
## libraries built without frame pointers), so that leaks are told apart.
test-asan: setup-test fixtures
	ASAN_OPTIONS=fast_unwind_on_malloc=0 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tools/sanitizers/lsan.supp:print_suppressions=0 \
		$(SWIFT) test --sanitize=address --scratch-path .build-asan

test-tsan: setup-test fixtures
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

clean:
	rm -rf .build .build-*
