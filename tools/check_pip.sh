#!/usr/bin/env bash
# Checks the pip route end to end, in a temporary directory removed afterwards:
#   /usr/bin/python3 -m venv --system-site-packages V;  V/bin/pip install --no-build-isolation .
#   import ember from outside the repository (the installed copy, not python/), compile an op at run time with
#   ember.utils.cpp_extension against the installed headers and library, then build and run
#   examples/out_of_tree against the headers, libember.so and CMake package inside the installed package.
# Nothing is downloaded (--no-index): the build uses Debian's setuptools and wheel.
#
#   tools/check_pip.sh        (reuses build/ like `make`; EMBER_BUILD_DIR selects another)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ember-pip-check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "check_pip: $*" >&2; exit 1; }

# --without-pip: the venv runs Debian's own pip (seen through --system-site-packages; the same pip 23.0.1 that
# ensurepip would copy in, which takes longer than the whole check otherwise).
/usr/bin/python3 -m venv --without-pip --system-site-packages "$TMP/venv"
"$TMP/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-cache-dir "$ROOT" >"$TMP/pip.log" 2>&1 \
  || { cat "$TMP/pip.log"; fail "pip install --no-build-isolation . failed"; }

cd "$TMP"
PKG=$(env -u PYTHONPATH "$TMP/venv/bin/python" - <<'PY'
import os
import ember
pkg = os.path.dirname(ember.__file__)
x = ember.arange(6, dtype=ember.float32).reshape(2, 3)
assert str(x * 2 + 1) == "tensor([[ 1.,  3.,  5.],\n        [ 7.,  9., 11.]])", str(x * 2 + 1)
for f in ("lib/libember.so", "include/ember/api/ember.h", "lib/cmake/Ember/EmberConfig.cmake"):
    assert os.path.isfile(os.path.join(pkg, f)), f"the installed package lacks {f}"
# An op compiled at run time against the installed package's own headers and libember.so.
os.environ["EMBER_EXTENSIONS_DIR"] = os.path.join(os.getcwd(), "extensions")
from ember.utils import cpp_extension
assert cpp_extension.include_paths() == [os.path.join(pkg, "include")], cpp_extension.include_paths()
ext = cpp_extension.load_inline(
    "pip_check", "ember::Tensor twice(ember::Tensor a) { return ember::mul(a, ember::Scalar(2)); }",
    functions=["twice"])
assert ext.twice(ember.ones(2)).tolist() == [2.0, 2.0]
print(pkg)
PY
) || fail "importing the installed ember failed"
case "$PKG" in "$TMP/venv/"*) ;; *) fail "imported ember from $PKG, not from the venv";; esac

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$ROOT/examples/out_of_tree" -B "$TMP/app" -G Ninja -DCMAKE_PREFIX_PATH="$PKG" "${launcher[@]}" \
  >"$TMP/configure.log" 2>&1 || { cat "$TMP/configure.log"; fail "find_package(Ember) in the installed package failed"; }
cmake --build "$TMP/app" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; fail "building against the installed package failed"; }
"$TMP/app/app" >/dev/null || fail "the example built against the installed package failed"
echo "check_pip: pip install --no-build-isolation . into a venv works (import ember, cpp_extension, headers, libember.so, find_package)"
