"""Compares a program's output with the text LibTorch printed, line by line and token by token: tokens must be
equal, except numbers, which may differ by one unit in the last digit shown (a float rounded on either side of a
printed digit: LibTorch and Ember compute in float32 with different kernels, so the last bit of a value can
differ). Exit status 1, with the differing lines, when the texts differ otherwise.

    /usr/bin/python3 tests/libtorch_compat/same_text.py expected.txt actual.txt
"""
import re
import sys

NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def last_digit_unit(token):
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def same_token(a, b):
    if a == b:
        return True
    if NUMBER.match(a) and NUMBER.match(b):
        return abs(float(a) - float(b)) <= 1.000001 * max(last_digit_unit(a), last_digit_unit(b))
    return False


def main(expected_path, actual_path):
    with open(expected_path) as f:
        expected = f.read().splitlines()
    with open(actual_path) as f:
        actual = f.read().splitlines()
    bad = []
    for i in range(max(len(expected), len(actual))):
        e = expected[i] if i < len(expected) else "<missing>"
        a = actual[i] if i < len(actual) else "<missing>"
        te, ta = e.split(), a.split()
        if len(te) != len(ta) or not all(same_token(x, y) for x, y in zip(te, ta)):
            bad.append(f"line {i + 1}:\n  expected: {e}\n  actual:   {a}")
    if bad:
        print("\n".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
