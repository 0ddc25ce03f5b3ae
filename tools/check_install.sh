#!/usr/bin/env bash
# Checks that an installed Ember is usable from a project outside the source tree:
#   cmake --install BUILD --prefix P   ->  P/include/ember/..., P/lib/libember.so, P/lib/cmake/Ember/
#   examples/out_of_tree: find_package(Ember) + Ember::ember, configured, built and run against P.
# Everything happens in a temporary directory that is removed afterwards.
#
#   tools/check_install.sh [BUILD_DIR]      (default: build; it must be built already)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ember-install-check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix

cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" || { cat "$TMP/install.log"; exit 1; }

fail() { echo "check_install: $*" >&2; exit 1; }
[[ -f $PREFIX/lib/libember.so ]] || fail "missing $PREFIX/lib/libember.so"
[[ -f $PREFIX/lib/cmake/Ember/EmberConfig.cmake ]] || fail "missing lib/cmake/Ember/EmberConfig.cmake"
[[ -f $PREFIX/include/ember/api/ember.h ]] || fail "missing include/ember/api/ember.h"
# Every header and generated .inc of the source tree is installed.
( cd "$ROOT" && find ember -name '*.h' -o -name '*.inc' ) | sort >"$TMP/want"
( cd "$PREFIX/include" && find ember -name '*.h' -o -name '*.inc' ) | sort >"$TMP/have"
missing=$(comm -23 "$TMP/want" "$TMP/have")
[[ -z $missing ]] || fail "headers not installed: $missing"
# Only headers: no sources or build files among them.
extra=$(find "$PREFIX/include" -type f ! -name '*.h' ! -name '*.inc')
[[ -z $extra ]] || fail "non-header files installed under include/: $extra"

# Configure, build and run the example with nothing of the source tree on its paths.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$ROOT/examples/out_of_tree" -B "$TMP/app" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${launcher[@]}" >"$TMP/configure.log" 2>&1 \
  || { cat "$TMP/configure.log"; fail "configuring examples/out_of_tree against $PREFIX failed"; }
cmake --build "$TMP/app" >"$TMP/build.log" 2>&1 \
  || { cat "$TMP/build.log"; fail "building examples/out_of_tree against $PREFIX failed"; }
if grep -q -- "-I$ROOT\|-isystem $ROOT" "$TMP/app/compile_commands.json" 2>/dev/null; then
  fail "the out-of-tree build saw the source tree's include path"
fi
"$TMP/app/app" || fail "the out-of-tree example failed"
# The training example, built out of tree, for a few steps on the real data (Debian's fashion-mnist package).
FMNIST=/usr/share/datasets/fashion-mnist
if [[ -f $FMNIST/train-images-idx3-ubyte.gz ]]; then
  "$TMP/app/train_fashion_mnist" --epochs 1 --limit 512 --test-limit 500 --no-progress --out "$TMP/train" \
    >"$TMP/train.log" 2>&1 || { cat "$TMP/train.log"; fail "the out-of-tree train_fashion_mnist failed"; }
  [[ -f $TMP/train/model_cpp.pt ]] || fail "the out-of-tree train_fashion_mnist saved no state dict"
else
  echo "check_install: $FMNIST missing; the out-of-tree train_fashion_mnist was built, not run"
fi
# Real LibTorch programs renamed torch -> ember (tests/libtorch_compat), built against the installed Ember the two
# ways LibTorch projects link (TorchConfig's variables at C++14, and targets at C++17), then run for a few batches
# on real data: Fashion-MNIST unpacked as LibTorch's MNIST reader expects it, and a text file for the language
# model. Each run must succeed; the tensor tour must also print what LibTorch printed (expected_tensor_basics.txt).
COMPAT=$ROOT/tests/libtorch_compat
cmake -S "$COMPAT" -B "$TMP/compat" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
  "${launcher[@]}" >"$TMP/compat_configure.log" 2>&1 \
  || { cat "$TMP/compat_configure.log"; fail "configuring tests/libtorch_compat against $PREFIX failed"; }
cmake --build "$TMP/compat" >"$TMP/compat_build.log" 2>&1 \
  || { cat "$TMP/compat_build.log"; fail "building the LibTorch programs of tests/libtorch_compat failed"; }
( cd "$TMP" && "$TMP/compat/tensor_basics" >"$TMP/tensor_basics.out" 2>/dev/null ) \
  || fail "tests/libtorch_compat/tensor_basics failed"
/usr/bin/python3 "$COMPAT/same_text.py" "$COMPAT/expected_tensor_basics.txt" "$TMP/tensor_basics.out" \
  || fail "tests/libtorch_compat/tensor_basics printed other text than LibTorch (expected_tensor_basics.txt)"
run_compat() {  # program, arguments...
  local p=$1
  shift
  ( cd "$TMP/compat" && MAX_BATCHES=${MAX_BATCHES:-5} "./$p" "$@" >"$TMP/$p.log" 2>&1 ) \
    || { cat "$TMP/$p.log"; fail "tests/libtorch_compat/$p failed"; }
}
run_compat autograd
run_compat regression
run_compat linear_regression
[[ -f /usr/share/common-licenses/GPL-3 ]] && MAX_BATCHES=10 run_compat language_model /usr/share/common-licenses/GPL-3
if [[ -f $FMNIST/train-images-idx3-ubyte.gz ]]; then
  mkdir -p "$TMP/mnist"
  for f in "$FMNIST"/*-ubyte.gz; do gunzip -c "$f" >"$TMP/mnist/$(basename "$f" .gz)"; done
  for p in mnist dcgan custom_dataset logistic_regression feedforward_net cnn gan vae birnn; do
    run_compat "$p" "$TMP/mnist"
  done
fi

echo "check_install: the renamed LibTorch programs of tests/libtorch_compat built and ran"

# The same project built with Clang: the installed headers must not depend on GCC's leniency (Clang instantiates
# some templates earlier; see IValue.h's payload destructors). libember.so itself is GCC-built; both use libstdc++.
if command -v clang++ >/dev/null; then
  cmake -S "$ROOT/examples/out_of_tree" -B "$TMP/app_clang" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >"$TMP/configure_clang.log" 2>&1 \
    || { cat "$TMP/configure_clang.log"; fail "configuring examples/out_of_tree with clang++ failed"; }
  cmake --build "$TMP/app_clang" >"$TMP/build_clang.log" 2>&1 \
    || { cat "$TMP/build_clang.log"; fail "building examples/out_of_tree with clang++ failed"; }
  "$TMP/app_clang/app" >"$TMP/app_clang.log" 2>&1 || { cat "$TMP/app_clang.log"; fail "the clang-built example failed"; }
else
  echo "check_install: clang++ missing; the Clang build of the out-of-tree example was skipped"
fi
echo "check_install: installed headers, libember.so and find_package(Ember) work out of tree"
