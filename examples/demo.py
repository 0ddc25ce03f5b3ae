#!/usr/bin/python3
"""Ember's Python demo: build tensors, run ops on them and print them.

    make demo            (or, after `make`:  PYTHONPATH=python /usr/bin/python3 examples/demo.py)
"""
import sys

try:
    import ember
    import ember._C  # noqa: F401  (the compiled extension; fails clearly when it is not built)
except ImportError as e:
    sys.exit(f"demo: cannot import ember ({e}).\n"
             "Build the extension first with `make` and run from the repository root with\n"
             "    PYTHONPATH=python /usr/bin/python3 examples/demo.py")

x = ember.arange(6, dtype=ember.float32).reshape(2, 3)
b = ember.linspace(-1, 1, 3)
print("x =", x, sep="\n")
print("x * 2 + b =", x * 2 + b, sep="\n")
print("exp(x.t()) =", x.t().exp(), sep="\n")
print("sigmoid(x - 2.5) =", ember.sigmoid(x - 2.5), sep="\n")
