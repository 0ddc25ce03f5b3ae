#!/usr/bin/env bash
# The mechanical rename that turns a LibTorch program into an Ember one, and back:
#   tests/libtorch_compat/rename.sh to-ember  < program_for_libtorch.cpp > program.cpp
#   tests/libtorch_compat/rename.sh to-torch  < program.cpp > program_for_libtorch.cpp
# torch -> ember (namespaces, <torch/...> headers, words in comments and strings) and TORCH_ -> EMBER_ (macros);
# at::, c10::, AT_ASSERT and AT_ERROR stay as they are. The programs of this folder are stored renamed; the
# inverse gives back the LibTorch original, which compare_with_libtorch.sh builds against LibTorch.
set -euo pipefail
case "${1:-}" in
  to-ember) sed -e 's/torch/ember/g' -e 's/TORCH_/EMBER_/g' ;;
  to-torch) sed -e 's/ember/torch/g' -e 's/EMBER_/TORCH_/g' ;;
  *) echo "usage: $0 to-ember|to-torch < in > out" >&2; exit 2 ;;
esac
