#!/usr/bin/python3
"""Ember's Python demo: build tensors, run ops on them and print them, in PyTorch's style.

    make demo            (or, after `make`:  PYTHONPATH=python /usr/bin/python3 examples/demo.py)

`make demo` then runs the main job, examples/fashion_mnist/train.py (training on Fashion-MNIST).
"""
import sys

try:
    import ember as torch  # PyTorch programs run with this one line changed
except ImportError as e:
    sys.exit(f"demo: cannot import ember ({e}).\n"
             "Build the extension first with `make` and run from the repository root with\n"
             "    PYTHONPATH=python /usr/bin/python3 examples/demo.py")

torch.set_num_threads(2)
x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
b = torch.linspace(-1, 1, 3)
print("x =", x, sep="\n")
print("x * 2 + b =", x * 2 + b, sep="\n")  # b broadcasts over the rows
print("exp(x.t()) =", x.t().exp(), sep="\n")
print("gelu(x - 2.5) =", torch.nn.functional.gelu(x - 2.5), sep="\n")

# Type promotion as PyTorch's: an int tensor with a Python float gives the default float dtype.
i = torch.tensor([[1, 2], [3, 4]])
print("int64 tensor / 2 =", i / 2, "and // 2 =", i // 2)

# Views share memory with their base; in-place ops write through them.
row = x[1]
row.mul_(10)
print("x after x[1].mul_(10) =", x, sep="\n")

# NumPy interop shares memory too.
a = x.numpy()
a[0, 0] = -1
print("x after writing through x.numpy():", x[0])

# Bad input raises the exception PyTorch raises, naming the op and the shapes.
try:
    torch.ones(2, 3) + torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)
print(f"(threads: {torch.get_num_threads()}, kernels: {torch._C._cpu_capability()})")
