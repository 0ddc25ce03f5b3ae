"""The op database's generator, by what each module makes (run as tools/gen_ops.py):
  schema.py         schema strings in PyTorch's grammar
  cpp_types.py      schema types as C++ types and defaults
  model.py          the database: its fields (FIELDS), validation with file and line, Op and its variants
  cpp_api.py        ember::<op>() and Tensor::<op>()
  registrations.py  m.def() of the schemas, composite and CPU kernel registrations
  autograd.py       backward nodes, Autograd and ADInplaceOrView kernels, the never-differentiable list
  fusion.py         the opcodes of fused elementwise programs and the nodes they fuse
  python_table.py   Python-only binding facts (python/csrc) and the generic tests' op table (tests/python)
  readme.py         the field table of ember/ops/README.md
"""
