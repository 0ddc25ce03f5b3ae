# Ember's two commands (see README.md):
#   make demo    install missing Debian packages, build, run the short demos (C++ and Python), then the main job:
#                train a CNN on Fashion-MNIST (examples/fashion_mnist/train.py), EPOCHS epochs (default 3), export
#                it (ember.jit), classify the test images with the exported model from C++
#                (examples/cpp/classify_fashion_mnist.cpp, which loads the library of the model's custom op
#                from the path the export listed in custom_ops.txt) and check its predictions equal Python's
#   make test    install missing Debian packages, build, run every check and test
#   make sanitize   the GoogleTest suites and a pytest subset under ASan+UBSan (build-asan/), each libFuzzer
#                target for FUZZ_SECONDS, the concurrency tests under TSan (build-tsan/); `make asan`, `make fuzz`
#                and `make tsan` run one stage (tools/sanitize.sh). CI runs it after `make test` (.ci/run says
#                how it fuzzes).
#   make fuzz    the libFuzzer targets (tests/fuzz), built in build-asan/ (clang, ASan, UBSan, coverage), each run
#                for FUZZ_SECONDS (default 300); fails on any crash, leak, timeout or out-of-memory
# and plain `make`, which configures (CMake + Ninja, ccache when present) and builds everything into build/.
# Both are incremental: with nothing changed they only re-check and re-run.
#
# Variables: BUILD (build directory, default build), CMAKE_ARGS (extra arguments for the first configure),
# EPOCHS (epochs of the demo's training, default 3), JOBS (parallel compile jobs; default: make's own -jN when
# given, e.g. `make -j2`, else the number of cores — ninja's own default, cores + 2, overloads small machines).
# make fuzz: FUZZ_SECONDS per target, FUZZ_TARGETS (default all), FUZZ_TIMEOUT (seconds one input may take,
# default 10), FUZZ_RSS_MB (memory limit, default 2048), FUZZ_FLAGS (more libFuzzer flags, e.g. -jobs=2, -seed=1).

BUILD      ?= build
PYTHON     := /usr/bin/python3
CMAKE_ARGS ?=
EPOCHS     ?= 3
NPROC      := $(shell nproc)
JOBS       ?=
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?= archive jit_module ir schema idx pickle torch_checkpoint safetensors gguf script_parser \
                tcp_store file_store
FUZZ_TIMEOUT ?= 10
FUZZ_RSS_MB  ?= 2048
FUZZ_FLAGS   ?=
# Expanded in the recipe, where MAKEFLAGS holds make's -jN (a bare -j, "unlimited", is not passed on).
ninja_jobs  = -j$(or $(JOBS),$(patsubst -j%,%,$(filter-out -j,$(filter -j%,$(MAKEFLAGS)))),$(NPROC))
# ccache keys on paths relative to the checkout, so clones elsewhere (CI, worktrees) share the cache.
export CCACHE_BASEDIR := $(CURDIR)

.DEFAULT_GOAL := all
.NOTPARALLEL:
.PHONY: all build configure setup demo test check-layers check-generated ctest pytest check-install \
        check-pip clean

all: build

# Configure once; afterwards Ninja re-runs CMake by itself whenever a CMakeLists.txt changes (or a globbed source
# list does). CMakeLists.txt uses ccache as the compiler launcher when it is installed.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: $(BUILD)/build.ninja
	ninja -C $(BUILD) $(ninja_jobs)

setup:
	scripts/setup.sh

# ---- make demo
demo: setup
	$(MAKE) --no-print-directory build
	$(BUILD)/examples/cpp/demo
	PYTHONPATH=python $(PYTHON) examples/demo.py
	PYTHONPATH=python $(PYTHON) examples/fashion_mnist/train.py --epochs $(EPOCHS)
	sed 's/^/--library=/' out/fashion_mnist/custom_ops.txt | xargs -d '\n' \
	  $(BUILD)/examples/cpp/classify_fashion_mnist --model out/fashion_mnist/model_ember_jit.pt \
	  --predictions out/fashion_mnist/predictions_cpp.txt
	cmp out/fashion_mnist/predictions_ember.txt out/fashion_mnist/predictions_cpp.txt && \
	  echo "the C++ program's predictions equal the Python model's on every test image"

# ---- make test
test: setup
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory check-layers check-generated ctest pytest check-install check-pip
	$(MAKE) --no-print-directory random-calls

check-layers:
	$(PYTHON) tools/check_layers.py

check-generated:
	$(PYTHON) tools/gen_ops.py --check

# The GoogleTest suites, one CTest entry per layer (tests/CMakeLists.txt).
ctest:
	ctest --test-dir $(BUILD) --output-on-failure --no-tests=error -j $(NPROC)

# Python tests run against the extension built into python/ember/, with PyTorch (python3-torch) as the oracle.
pytest:
	PYTHONPATH=python $(PYTHON) -m pytest -q tests/python

# Random API calls compared with PyTorch (tools/random_calls.py, README "Robustness"): fails on a crash or hang in
# Ember; prints the counts of each mismatch class and keeps every finding in $(BUILD)/random_calls.txt.
.PHONY: random-calls
RANDOM_CALLS ?= 3000
random-calls:
	PYTHONPATH=python $(PYTHON) tools/random_calls.py --calls $(RANDOM_CALLS) --seed 1 --jobs $(NPROC) \
	  --report $(BUILD)/random_calls.txt

check-install:
	tools/check_install.sh $(BUILD)

# pip install --no-build-isolation . into a fresh venv; reuses build/, so it only packages.
check-pip:
	EMBER_BUILD_DIR=$(BUILD) tools/check_pip.sh

# ---- make sanitize: each stage configures its own build folder with clang on first use, then builds only what its
# tests need (tools/sanitize.sh lists them). Not part of `make test`: two more builds of the library cost far
# more than the tests themselves, too much for every local run; CI runs them all.
# make fuzz (Note [fuzz targets] in tests/fuzz/CMakeLists.txt) builds its targets in build-asan/, whose library is
# instrumented for libFuzzer's coverage as well, so the fuzzers and the ASan tests share one build.
.PHONY: sanitize asan tsan fuzz
sanitize: asan fuzz tsan

asan tsan: setup
	JOBS=$(patsubst -j%,%,$(ninja_jobs)) tools/sanitize.sh $@

fuzz: setup
	JOBS=$(patsubst -j%,%,$(ninja_jobs)) SANITIZE_TARGETS="$(addprefix fuzz_,$(FUZZ_TARGETS))" tools/sanitize.sh asan \
	  -- tests/fuzz/run_fuzz.sh build-asan $(FUZZ_SECONDS) $(FUZZ_TIMEOUT) $(FUZZ_RSS_MB) $(FUZZ_TARGETS) -- $(FUZZ_FLAGS)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-pip python/ember/_C*.so
