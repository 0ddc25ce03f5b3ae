"""tools/gen_ops.py's database checks: an unknown or misspelled field, a value of the wrong kind or a missing
field stops it with the file and line; every field is documented; the committed output is current."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from opgen import model  # noqa: E402

GOOD = '''- schema: "twice(Tensor self) -> Tensor"
  cpu: twice
  shape: unary
  doc: "2 * self."
'''


def load(tmp_path, text):
    (tmp_path / "ops.yaml").write_text(text)
    return model.load(model.load_entries(str(tmp_path)))


def error_of(tmp_path, text):
    with pytest.raises(model.DatabaseError) as e:
        load(tmp_path, text)
    return str(e.value)


def test_a_good_entry_loads(tmp_path):
    ops = load(tmp_path, GOOD.replace('  cpu: twice\n', '  cpu: twice\n  inplace: true\n  out: true\n'))
    assert [o.schema.full() for o in ops] == ["aten::twice", "aten::twice_", "aten::twice.out"]


def test_misspelled_field_names_file_line_and_suggestion(tmp_path):
    msg = error_of(tmp_path, GOOD + '- schema: "thrice(Tensor self) -> Tensor"\n  cpu: thrice\n  shape: unary\n'
                             '  grads:\n    self: "3 * grad"\n  doc: "3 * self."\n')
    assert "ops.yaml:8" in msg and "unknown field 'grads'" in msg and "did you mean 'grad'" in msg


@pytest.mark.parametrize("line, what", [
    ("  shape: unaryy\n", "field 'shape' must be one of"),
    ("  variants: function, mehtod\n", "field 'variants' must be"),
    ("  tags: [pointwize]\n", "field 'tags' must be"),
    ("  python_numbers: some\n", "field 'python_numbers' must be"),
    ("  inplace: yes please\n", "field 'inplace' must be true or false"),
    ("  not_differentiable: [other]\n", "names 'other', which is not a Tensor argument"),
    ("  differentiable: true\n", "field 'differentiable' must be false"),
    ("  fused: {opcode: 99, when: {beta: 1}}\n", "condition on 'beta'"),
    ("  dtypes: [float33]\n", "field 'dtypes' must be"),
])
def test_bad_values(tmp_path, line, what):
    key = line.split(":")[0] + ":"
    base = "".join(ln + "\n" for ln in GOOD.splitlines() if not ln.startswith(key))
    msg = error_of(tmp_path, base + line)
    assert f"ops.yaml:{base.count(chr(10)) + 1}" in msg and what in msg, msg  # the field's own line


@pytest.mark.parametrize("drop, what", [
    ("  doc: \"2 * self.\"\n", "no 'doc'"),
    ("  cpu: twice\n", "needs exactly one of cpu"),
    ("  shape: unary\n", "needs either 'shape'"),
])
def test_missing_fields(tmp_path, drop, what):
    assert what in error_of(tmp_path, GOOD.replace(drop, ""))


def test_duplicates(tmp_path):
    assert "given twice" in error_of(tmp_path, GOOD.replace("  doc:", "  cpu: again\n  doc:"))
    assert "declared twice (also at" in error_of(tmp_path, GOOD + GOOD)


def test_inconsistent_fields(tmp_path):
    assert "without 'inplace: true'" in error_of(tmp_path, GOOD + "  inplace_composite: twice_\n")
    assert "'grad_node' without 'grad'" in error_of(tmp_path, GOOD + "  grad_node: TwiceBackward7\n")
    assert "differentiable: false' with a derivative" in error_of(
        tmp_path, GOOD + "  differentiable: false\n  grad:\n    self: \"2 * grad\"\n")


def test_every_field_is_documented_in_the_recipe():
    readme = open(os.path.join(ROOT, "ember/ops/README.md")).read()
    for name in model.FIELDS:
        assert f"| `{name}` |" in readme, name


def test_committed_output_is_current():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools/gen_ops.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_every_database_entry_has_a_shape_rule_or_a_reason():  # (an alias: its target's)
    for e in model.load_entries():
        assert ("shape" in e) != ("no_shape" in e), e.where


ALIAS = '''- schema: "double(Tensor self) -> Tensor"
  alias_of: twice
  variants: function, method
  inplace: true
  out: true
'''
GOOD_IO = GOOD.replace('  cpu: twice\n', '  cpu: twice\n  inplace: true\n  out: true\n  tags: [pointwise]\n')


def test_an_alias_calls_its_target_and_takes_its_rule(tmp_path):
    text = GOOD_IO + ALIAS
    ops = load(tmp_path, text)
    assert [o.schema.full() for o in ops[3:]] == ["aten::double", "aten::double_", "aten::double.out"]
    alias = ops[3].entry
    assert alias["shape"] == "unary" and alias["tags"] == ["pointwise"] and alias["doc"] == "Alias of twice: 2 * self."
    from opgen.registrations import gen_registrations
    reg = gen_registrations(ops)["ember/ops/generated/RegisterOps.cpp"]
    assert "Tensor double_(const Tensor& self) { return ember::twice_(self); }" in reg
    assert "Tensor double_out(const Tensor& self, const Tensor& out) { return ember::twice_out(out, self); }" in reg
    assert 'm.impl("aten::double", K::CompositeImplicitAutograd' in reg


@pytest.mark.parametrize("target, alias, what", [
    (GOOD_IO, ALIAS.replace("alias_of: twice", "alias_of: twise"),
     "'twise', which is not an entry of the database (did you mean 'twice'?)"),
    (GOOD_IO, ALIAS.replace("(Tensor self)", "(Tensor self, int n)"), "argument or result types differ"),
    (GOOD_IO, ALIAS + "  shape: unary\n", "field 'shape' on an alias"),
    (GOOD_IO, ALIAS + "  cpu: double\n", "field 'cpu' on an alias"),
    (GOOD, ALIAS, "'inplace: true' but the target 'twice' has no inplace variant"),
    (GOOD_IO, ALIAS + ALIAS.replace("double", "dbl").replace("alias_of: twice", "alias_of: double"),
     "itself an alias"),
], ids=["unknown", "types", "shape", "cpu", "variant", "chain"])
def test_bad_aliases(tmp_path, target, alias, what):
    assert what in error_of(tmp_path, target + alias)
