# The two README commands: `make demo` and `make test`. Each installs what it needs first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test test-unit demo bench gpu-check format clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-unit: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L unit

# The daemon demo: builds only cuzk and cuzk-daemon (in $(DEMO_BUILD)), then runs them.
DEMO_BUILD ?= build-demo
demo:
	@scripts/install-deps.sh --no-npm
	@scripts/demo.sh $(DEMO_BUILD)

bench: build
	bench/run-micro.sh $(BUILD)

gpu-check:
	scripts/gpu-check.sh

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD)
