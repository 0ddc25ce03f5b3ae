#!/usr/bin/env bash
# Builds the LibTorch original of each program of this folder (rename.sh to-torch) against Debian's
# libtorch-dev and the Ember program against an installed Ember, runs both on the same data and prints a diff of
# their outputs. Deterministic programs (tensor_basics, autograd, regression) should agree line by line; the
# training programs agree in what they print but not in every digit (different kernels, summation orders and,
# where a sampler shuffles, different random streams). Not part of `make test` (LibTorch's headers take about a
# minute per program to compile).
#
#   tests/libtorch_compat/compare_with_libtorch.sh PREFIX [program...]
#     PREFIX: an Ember install prefix (cmake --install build --prefix PREFIX)
#     programs: default tensor_basics autograd regression
# Environment: MAX_BATCHES (default 20) for the training programs; DATA, a folder of uncompressed
# (Fashion-)MNIST IDX files (default: unpacked from /usr/share/datasets/fashion-mnist into the work folder).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX=$(cd "${1:?usage: $0 PREFIX [program...]}" && pwd)
shift
programs=("$@")
[[ ${#programs[@]} -gt 0 ]] || programs=(tensor_basics autograd regression)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/libtorch-compare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export MAX_BATCHES=${MAX_BATCHES:-20}
if [[ -z ${DATA:-} ]]; then
  DATA=$WORK/data
  mkdir -p "$DATA"
  for f in /usr/share/datasets/fashion-mnist/*.gz; do gunzip -c "$f" >"$DATA/$(basename "$f" .gz)"; done
fi

cmake -S "$HERE" -B "$WORK/ember" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release >/dev/null
status=0
for p in "${programs[@]}"; do
  "$HERE/rename.sh" to-torch <"$HERE/$p.cpp" >"$WORK/$p.torch.cpp"
  g++ -std=c++17 -O2 -w -I/usr/include/torch/csrc/api/include "$WORK/$p.torch.cpp" -o "$WORK/$p.torch" \
    -ltorch -ltorch_cpu -lc10 -lpthread
  cmake --build "$WORK/ember" --target "$p" >/dev/null
  args=()
  case $p in
    tensor_basics|autograd|regression|linear_regression) ;;
    language_model) args=(/usr/share/common-licenses/GPL-3) ;;
    *) args=("$DATA") ;;
  esac
  (cd "$WORK" && "./$p.torch" "${args[@]}" >"$p.torch.out" 2>/dev/null)
  (cd "$WORK" && "$WORK/ember/$p" "${args[@]}" >"$p.ember.out" 2>/dev/null)
  if diff -u "$WORK/$p.torch.out" "$WORK/$p.ember.out" >"$WORK/$p.diff"; then
    echo "$p: same output as LibTorch"
  else
    echo "$p: differs from LibTorch ('-' LibTorch, '+' Ember):"
    cat "$WORK/$p.diff"
    status=1
  fi
done
exit $status
