#!/usr/bin/env bash
# The sanitizer stages of `make sanitize` (CI runs them after `make test`), each in a build folder of its own
# configured with clang and EMBER_SANITIZE (Note [sanitizer builds] in CMakeLists.txt):
#
#   tools/sanitize.sh asan   build-asan/, -fsanitize=address,undefined: every GoogleTest suite (leak checking
#                            on) and a pytest subset that exercises Ember broadly (ASAN_PYTESTS below); the
#                            library is also instrumented for libFuzzer (EMBER_FUZZ), whose targets `make fuzz` runs
#   tools/sanitize.sh tsan   build-tsan/, -fsanitize=thread: the concurrency tests, C++ (TSAN_GTESTS) and Python
#                            (TSAN_PYTESTS), with OpenMP's synchronisation known to TSan (Note [tsan and openmp])
#   tools/sanitize.sh asan|tsan -- CMD [ARG...]
#                            builds, then runs CMD in that stage's environment instead of its tests, e.g.
#                            tools/sanitize.sh asan -- build-asan/tests/python3 -m pytest tests/python/test_views.py
#
# Each stage configures its folder on first use and then builds only what its tests need (incremental, as
# `make`). Python runs as BUILD/tests/python3 (tests/sanitize/python_main.cpp: CPython's main linked with the
# sanitizer runtime) on the package BUILD/python/ember: the sanitized extension beside links to python/ember's
# files, made here. Variables: SANITIZE_BUILD (the folder; default build-asan or build-tsan), SANITIZE_TARGETS (what
# to build instead of the stage's tests' targets, e.g. the fuzz targets), JOBS (compile jobs).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

stage=${1:-}
shift || true
case "$stage" in
  asan) sanitizers=address,undefined ;;
  tsan) sanitizers=thread ;;
  *) echo "usage: $0 asan|tsan [-- CMD [ARG...]]" >&2; exit 2 ;;
esac
command=()
if [[ ${1:-} == -- ]]; then
  shift
  command=("$@")
  [[ ${#command[@]} -gt 0 ]] || { echo "$0: no command after --" >&2; exit 2; }
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 asan|tsan [-- CMD [ARG...]]" >&2; exit 2
fi
BUILD=${SANITIZE_BUILD:-build-$stage}
SUPP=$ROOT/tests/sanitize

# ---- what each stage runs
# ASan + UBSan: a pytest subset that calls most of Ember from Python in a few minutes: every op of the database
# (the generic per-op tests), autograd, serialization and the jit (untrusted files), the robustness tests, nn and
# the DataLoader (not its worker processes: Note [tests that fork] in tests/python/test_data.py). PyTorch, the
# oracle, is not instrumented; only Ember's code is checked.
ASAN_PYTESTS=(
  tests/python/test_ops_generic.py tests/python/test_autograd.py tests/python/test_serialize.py
  tests/python/test_robustness.py tests/python/test_jit_runtime.py tests/python/test_jit_trace.py
  tests/python/test_data.py
)
# TSan: the tests whose threads share Ember's state. C++: the autograd engine from several threads, 8 threads on
# one jit module (built and loaded), the DataLoader's worker threads, one generator drawn from several threads,
# per-thread tracing state, kernels run with several threads against one thread. Not yet the process groups
# (ember_distributed_tests, ranks as threads): Gloo itself is not instrumented, and the suite has not had a full
# TSan run here; add it once one passes.
TSAN_GTESTS=(
  "ember_autograd_tests:EngineThreads.*"
  "ember_jit_tests:Module.ManyThreadsCallForwardAtOnce:SavedModule.LoadedModuleFromManyThreads:Tracer.*Thread*"
  "ember_data_tests:DataLoader.*"
  "ember_kernels_tests:*Thread*"
)
# Python: threads sharing one loaded jit module (the GIL released while it runs), the autograd engine from
# several Python threads, one generator from several threads. Not the DataLoader's worker processes: they share
# no memory with threads of the parent that TSan could check, and TSan cannot follow a fork of a process that has
# threads (the workers exit with its code 66); the C++ DataLoader's worker threads are checked above.
TSAN_PYTESTS=(
  "tests/python/test_jit_runtime.py::test_threads_share_one_loaded_module"
  "tests/python/test_autograd.py::test_backward_from_several_threads"
  "tests/python/test_random.py::test_threads_share_a_generator_without_losing_draws"
)

# ---- configure and build
# These builds carry debug info, for which ccache hashes the build folder's absolute path unless told not to; so
# that a clone elsewhere (CI) reuses what an earlier build compiled, it does not (the objects' DW_AT_comp_dir then
# names the first checkout, which only changes the paths a report prints). CCACHE_BASEDIR comes from the Makefile.
export CCACHE_NOHASHDIR=1
jobs=()
[[ -n ${JOBS:-} ]] && jobs=(-j "$JOBS")
if [[ ! -f $BUILD/build.ninja ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DPython3_EXECUTABLE=/usr/bin/python3 -DEMBER_SANITIZE="$sanitizers" -DEMBER_FUZZ="$([[ $stage == asan ]] &&
      echo ON || echo OFF)" \
    -DEMBER_BUILD_BENCHMARKS=OFF -DEMBER_BUILD_EXAMPLES=OFF
fi
configured=$(sed -n 's/^EMBER_SANITIZE:STRING=//p' "$BUILD/CMakeCache.txt")
[[ $configured == "$sanitizers" ]] || { echo "$0: $BUILD is configured with EMBER_SANITIZE='$configured'" >&2; exit 1; }
if [[ -n ${SANITIZE_TARGETS:-} ]]; then
  read -r -a targets <<<"$SANITIZE_TARGETS"
elif [[ $stage == asan ]]; then
  targets=(all)
else
  targets=(ember_python ember_python3)
  for entry in "${TSAN_GTESTS[@]}"; do targets+=("${entry%%:*}"); done
fi
ninja -C "$BUILD" "${jobs[@]}" "${targets[@]}"

# The package: python/ember's files (linked, so edits show at once) beside the sanitized extension.
pkg=$BUILD/python/ember
mkdir -p "$pkg"
find "$pkg" -maxdepth 1 -type l ! -exec test -e {} \; -delete  # links to files since removed
for f in python/ember/*; do
  case ${f##*/} in _C.*so | __pycache__) continue ;; esac
  ln -sfn "$ROOT/$f" "$pkg/"
done

# ---- the environment
export EMBER_PYTHON_DIR=$ROOT/$BUILD/python EMBER_BUILD_DIR=$ROOT/$BUILD PYTHONDONTWRITEBYTECODE=1
PYTHON=$ROOT/$BUILD/tests/python3
if [[ $stage == asan ]]; then
  # Leaks: checked in the C++ programs (every GoogleTest suite, leak_check). Not in Python: CPython never tears
  # down its modules, so everything an extension allocates at import (Ember's op bindings, NumPy's and PyTorch's
  # tables) is reported at exit, by design rather than by mistake; pytest runs with detect_leaks=0.
  export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
  # Note [tsan and openmp]
  # clang's -fopenmp links LLVM's libomp, which also serves the GOMP_* entry points of OpenBLAS and oneDNN (it
  # comes first among libember.so's libraries), so every parallel region of the process runs on libomp. Its
  # OMPT tool Archer (Debian ships it with libomp) tells TSan about the regions' fork, join and barriers;
  # without it every OpenMP kernel would report races between its threads. The kernels run with 2 threads, so
  # Ember's OpenMP regions are checked too, not only its own threads.
  archer=$(dirname "$(readlink -f "$(command -v clang++)")")/../lib/libarcher.so
  [[ -f $archer ]] || { echo "$0: Archer ($archer) is missing: apt-get install libomp-14-dev" >&2; exit 1; }
  export OMP_TOOL_LIBRARIES=$archer OMP_NUM_THREADS=2 ARCHER_OPTIONS=verbose=0
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$SUPP/tsan.supp
fi

if [[ ${#command[@]} -gt 0 ]]; then
  exec "${command[@]}"
fi

# ---- the tests
if [[ $stage == asan ]]; then
  ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -j "$(nproc)"
  # Not the tests that fork worker processes (Note [tests that fork] in tests/python/test_data.py). A test
  # running longer than faulthandler_timeout prints every thread's stack, so a hang shows where it is.
  ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} "$PYTHON" -m pytest -q -p no:cacheprovider \
    -m "not forks" -o faulthandler_timeout=300 "${ASAN_PYTESTS[@]}"
else
  for entry in "${TSAN_GTESTS[@]}"; do
    echo "tsan: ${entry%%:*} --gtest_filter=${entry#*:}"
    "$BUILD/tests/${entry%%:*}" --gtest_brief=1 --gtest_filter="${entry#*:}"
  done
  for t in "${TSAN_PYTESTS[@]}"; do
    # shellcheck disable=SC2086  # an entry may carry pytest options
    "$PYTHON" -m pytest -q -p no:cacheprovider -o faulthandler_timeout=300 $t
  done
fi
echo "sanitize: $stage passed"
