# Quick start: `make run` and `make test`. Both install libarchive-dev and
# pkg-config first when they are missing.
SWIFT  ?= swift
SAMPLE ?= Fixtures/Travel.journal

.PHONY: setup build run test clean

setup:
	@Tools/ensure-system-packages.sh

build: setup
	$(SWIFT) build

## Builds, then prints the sample document's tree.
run: build
	$(SWIFT) run --skip-build wrapinspect dump "$(SAMPLE)"

## Builds and runs every test.
test: setup
	$(SWIFT) test

clean:
	rm -rf .build
