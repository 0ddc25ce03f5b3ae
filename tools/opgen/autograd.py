"""Backward nodes and Autograd-key kernels (`grad:`), ADInplaceOrView kernels, and the list of ops whose
results are never differentiable (`differentiable: false`)."""
import re

from .cpp_types import HEADER, cpp_arg_type, cpp_ret_type, cstr


# Storage of a non-tensor argument inside a backward node: member type and how apply() reads it back.
SAVED_TYPES = {
    "IntArrayRef": ("std::vector<int64_t>", "IntArrayRef {n} = {n}_;"),
    "OptionalIntArrayRef": ("std::optional<std::vector<int64_t>>",
                            "OptionalIntArrayRef {n} = {n}_ ? OptionalIntArrayRef(IntArrayRef(*{n}_)) : std::nullopt;"),
    "const Scalar&": ("Scalar", "const Scalar& {n} = {n}_;"),
    "const std::optional<Scalar>&": ("std::optional<Scalar>", "const std::optional<Scalar>& {n} = {n}_;"),
    "int64_t": ("int64_t", "int64_t {n} = {n}_;"),
    "std::optional<int64_t>": ("std::optional<int64_t>", "std::optional<int64_t> {n} = {n}_;"),
    "bool": ("bool", "bool {n} = {n}_;"),
    "double": ("double", "double {n} = {n}_;"),
    "std::optional<DType>": ("std::optional<DType>", "std::optional<DType> {n} = {n}_;"),
    "DType": ("DType", "DType {n} = {n}_;"),
    "std::optional<double>": ("std::optional<double>", "std::optional<double> {n} = {n}_;"),
    "std::optional<bool>": ("std::optional<bool>", "std::optional<bool> {n} = {n}_;"),
    "std::string_view": ("std::string", "std::string_view {n} = {n}_;"),
    "const std::vector<std::optional<Tensor>>&": ("std::vector<std::optional<Tensor>>",
                                                  "const std::vector<std::optional<Tensor>>& {n} = {n}_;"),
    "std::optional<std::string_view>": ("std::optional<std::string>",
                                        "std::optional<std::string_view> {n} = {n}_ ? "
                                        "std::optional<std::string_view>(*{n}_) : std::nullopt;"),
}


def camel(name):
    """PyTorch's node-name casing: each '_'-separated word title-cased, so a letter after a digit is upper
    case too (max_pool2d -> MaxPool2D, log1p -> Log1P), as its grad_fn names."""
    return "".join(p.title() for p in name.split("_") if p)


def uses(formula, ident):
    return re.search(r"(?<![\w.])" + re.escape(ident) + r"(?!\w)", formula) is not None


DIFF_TYPES = ("Tensor", "Tensor?", "Tensor[]")


def grad_targets(s, g):
    """The `grad:` entry as [(argument names, formula)]. A key names one differentiable argument, or several
    separated by commas for a combined formula that returns a tuple (one gradient per name, in order) and may
    read `grad_input_mask` (std::array<bool, N>: which of them are needed)."""
    by_name = {a.name: a for a in s.args}
    out = []
    for key, f in g.items():
        names = [n.strip() for n in key.split(",")]
        for n in names:
            if n not in by_name or by_name[n].type not in DIFF_TYPES:
                raise SystemExit(f"gen_ops: {s.full()}: grad for {n}, which is not a Tensor argument")
            if len(names) > 1 and by_name[n].type == "Tensor[]":
                raise SystemExit(f"gen_ops: {s.full()}: a combined formula cannot include the list {n}")
        out.append((names, f))
    return out


def result_names(s):
    """How formulas name the outputs: `result` for one output, `result0`, `result1`, ... (and the schema's
    return names) for several."""
    if len(s.rets) == 1:
        return {"result": 0}
    names = {f"result{i}": i for i in range(len(s.rets))}
    names.update({r.name: i for i, r in enumerate(s.rets) if r.name})
    return names


def refuse_requires_grad(o):
    """C++ statements raising PyTorch's error when an argument listed in `not_differentiable` requires grad."""
    base = o.schema.name.split("::")[-1]
    return "".join(
        f"  if (GradMode::is_enabled() && any_requires_grad({n}))\n"
        f"    EMBER_FAIL(\"The function '{base}' is not differentiable with respect to argument '{n}'. This input "
        f"cannot have requires_grad True.\");\n" for n in o.entry.get("not_differentiable", []))


def gen_autograd(ops):
    """Backward nodes and Autograd-key kernels from the `grad:` entries (Note [autograd dispatch]).

    Supported: differentiable arguments of type Tensor, Tensor? (no gradient edge when absent) and Tensor[]
    (one edge per element; the formula returns a variable_list); results that are one Tensor, a tuple
    (`grads[i]` is output i's gradient, zeros when none flowed there) or a Tensor[] (`grads`). Only floating
    results get a grad_fn. `grad_node:` overrides the node's name where PyTorch's numbering differs.

    In-place view ops (t_, squeeze_.dim, ...) record a node of their own, numbered after every functional
    node of the same name as PyTorch's (squeeze, squeeze.dim, squeeze_, squeeze_.dim: SqueezeBackward0..3); a
    formula may read `<arg>_geometry` (the argument's sizes, strides and offset when the op ran, a
    TensorGeometry) instead of saving the tensor itself."""
    counts = {}
    body, reg = [], []
    functional = {}
    for o in [o for o in ops if not o.inplace_view] + [o for o in ops if o.inplace_view]:
        g = o.entry.get("grad")
        if not g and o.entry.get("not_differentiable") and o.kind == "functional":
            # No derivative: the kernel runs as it is, unless an input that has none requires grad.
            s = o.schema
            kname = s.name.split("::")[-1] + ("_" + s.overload if s.overload else "")
            body.append(f"{cpp_ret_type(s.rets)} {kname}({o.cpp_params(False)}) {{\n"
                        f"  static const OperatorHandle h = Dispatcher::singleton().find_or_throw({cstr(s.full())});\n"
                        f"{refuse_requires_grad(o)}  ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);\n"
                        f"  return h.call<{o.call_types()}>({', '.join(a.name for a in s.args)});\n}}\n\n")
            reg.append(f"  m.impl({cstr(s.full())}, DispatchKey::Autograd, "
                       f"static_cast<{o.fn_ptr_type()}>(&{kname}));\n")
            continue
        if not g or o.kind == "out":
            continue
        s = o.schema
        targets = grad_targets(s, g)
        target_names = {n for names, _ in targets for n in names}
        base = s.name.split("::")[-1]
        kname = base + ("_" + s.overload if s.overload else "")
        params = o.cpp_params(False)
        names = ", ".join(a.name for a in s.args)
        handle = (f"  static const OperatorHandle h = Dispatcher::singleton().find_or_throw({cstr(s.full())});\n")
        call = f"h.call<{o.call_types()}>({names})"
        diff = [a for a in s.args if a.name in target_names]
        any_rg = " || ".join(f"any_requires_grad({a.name})" for a in diff)
        if o.kind == "inplace" and not o.inplace_view:
            fk = functional[o.entry["schema"]]
            rest = ", ".join(["ember::clone(self)"] + [a.name for a in s.args[1:]])
            body.append(f"Tensor {kname}_({params}) {{\n{handle}"
                        f"  if (!GradMode::is_enabled() || !({any_rg})) {{\n"
                        f"    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);\n    return {call};\n  }}\n"
                        f"  check_inplace(self);\n"
                        f"  Tensor r = generated::{fk}({rest});\n"
                        f"  commit_inplace(self, r, {0 if 'self' in target_names else -1});\n  return self;\n}}\n\n")
            reg.append(f"  m.impl({cstr(s.full())}, DispatchKey::Autograd, "
                       f"static_cast<{o.fn_ptr_type()}>(&{kname}_));\n")
            continue
        if "grad_node" in o.entry and o.inplace_view:
            raise SystemExit(f"gen_ops: {s.full()}: grad_node would name the in-place view op's node too")
        if "grad_node" in o.entry:
            node = o.entry["grad_node"]
        else:
            key = base.lstrip("_")
            key = key[:-1] if o.inplace_view else key  # t_ numbers on from t's nodes
            idx = counts.get(key, 0)
            counts[key] = idx + 1
            node = f"{camel(base)}Backward{idx}"
        if not o.inplace_view:
            functional[o.entry["schema"]] = kname
        list_out = len(s.rets) == 1 and s.rets[0].type == "Tensor[]"
        multi = len(s.rets) > 1 or list_out
        formulas = " ".join(f for _, f in targets)
        rnames = {} if list_out else result_names(s)
        saved_r = sorted({i for n, i in rnames.items() if uses(formulas, n)})
        if list_out and uses(formulas, "result"):
            raise SystemExit(f"gen_ops: {s.full()}: formulas cannot read a Tensor[] result")
        saved_t = [a for a in s.args if a.type in DIFF_TYPES and uses(formulas, a.name)]
        saved_o = [(a, cpp_arg_type(a.type)) for a in s.args if a.type not in DIFF_TYPES and uses(formulas, a.name)]
        saved_g = [a for a in s.args if a.type == "Tensor" and uses(formulas, a.name + "_geometry")]
        # Slot of each differentiable argument among the node's edges (lists take one slot per element).
        slot, pos, lists = "0", {}, []
        for a in diff:
            pos[a.name] = slot
            step = f"{a.name}_size_" if a.type == "Tensor[]" else "1"
            if a.type == "Tensor[]":
                lists.append(a)
            slot = str(int(slot) + 1) if slot.isdigit() and step == "1" else f"{slot} + {step}"
        members = [f"  SavedVariable "
                   f"{a.name}_;\n" if a.type != "Tensor[]" else f"  std::vector<SavedVariable> {a.name}_;\n"
                   for a in saved_t]
        members += [f"  size_t {a.name}_size_ = 0;\n" for a in lists]
        for a, t in saved_o:
            members.append(f"  {saved_type(s, a, t)[0]} {a.name}_;\n")
        members += [f"  SavedVariable result{i}_;\n" for i in saved_r]
        members += [f"  TensorGeometry {a.name}_geometry_;\n" for a in saved_g]
        if multi:
            members.append("  std::vector<InputMeta> output_meta_;\n")
        release = " ".join([f"for (auto& v : {a.name}_) v.reset();" if a.type == "Tensor[]" else f"{a.name}_.reset();"
                            for a in saved_t] + [f"result{i}_.reset();" for i in saved_r])
        body.append(f"struct {node} final : Node {{\n"
                    f"  std::string name() const override {{ return {cstr(node)}; }}\n"
                    f"  variable_list apply(variable_list&& grads) override;\n"
                    + (f"  void release_variables() override {{ {release} }}\n" if release else "")
                    + "".join(members) + "};\n\n")
        ap = [f"variable_list {node}::apply(variable_list&& grads) {{\n"]
        if multi:
            ap.append("  materialize_grads(grads, output_meta_);\n")
        if uses(formulas, "grad"):
            ap.append("  const Tensor& grad = grads[0];\n")
        ap.append("  variable_list out(next_edges().size());\n")
        if saved_t or saved_r:
            ap.append("  const std::shared_ptr<Node> self_node = shared_from_this();\n")
        for a in saved_t:
            if a.type == "Tensor":
                ap.append(f"  const Tensor {a.name} = {a.name}_.unpack(self_node);\n")
            elif a.type == "Tensor?":
                ap.append(f"  const std::optional<Tensor> {a.name} = {a.name}_.defined() ? "
                          f"std::optional<Tensor>({a.name}_.unpack(self_node)) : std::nullopt;\n")
            else:
                ap.append(f"  const variable_list {a.name}_list = unpack_list({a.name}_, self_node);\n"
                          f"  const TensorList {a.name} = {a.name}_list;\n")
        for n, i in rnames.items():
            if i in saved_r and uses(formulas, n):
                ap.append(f"  const Tensor {n} = result{i}_.unpack(self_node);\n")
        for a, t in saved_o:
            ap.append("  " + saved_type(s, a, t)[1].format(n=a.name) + "\n")
        for a in saved_g:
            ap.append(f"  const TensorGeometry& {a.name}_geometry = {a.name}_geometry_;\n")
        for a in diff:
            if uses(formulas, a.name + "_sizes"):
                if a.type == "Tensor[]":
                    ap.append(f"  const std::vector<IntArrayRef> {a.name}_sizes = "
                              f"list_sizes(input_meta, {pos[a.name]}, {a.name}_size_);\n")
                else:
                    ap.append(f"  IntArrayRef {a.name}_sizes = input_meta[{pos[a.name]}].sizes;\n")
            if a.type == "Tensor" and uses(formulas, a.name + "_dtype"):
                ap.append(f"  const DType {a.name}_dtype = input_meta[{pos[a.name]}].dtype;\n")
        by_name = {a.name: a for a in s.args}
        for tnames, f in targets:
            if len(tnames) == 1 and by_name[tnames[0]].type == "Tensor[]":
                n, p = tnames[0], pos[tnames[0]]
                ap.append(f"  if (any_needed(*this, {p}, {n}_size_)) {{\n    const variable_list gs = {f};\n"
                          f"    for (size_t k = 0; k < {n}_size_; ++k)\n"
                          f"      if (needs_input_grad({p} + k)) out[{p} + k] = reduce_grad(gs[k], input_meta[{p} + "
                          f"k]);\n  }}\n")
            elif len(tnames) == 1:
                p = pos[tnames[0]]
                ap.append(f"  if (needs_input_grad({p})) out[{p}] = reduce_grad({f}, input_meta[{p}]);\n")
            else:
                mask = ", ".join(f"needs_input_grad({pos[n]})" for n in tnames)
                ap.append(f"  {{\n    const std::array<bool, {len(tnames)}> grad_input_mask{{{mask}}};\n"
                          f"    if (std::find(grad_input_mask.begin(), grad_input_mask.end(), true) != "
                          f"grad_input_mask.end()) {{\n"
                          f"      const auto r = {f};\n")
                for j, n in enumerate(tnames):
                    ap.append(f"      if (grad_input_mask[{j}]) out[{pos[n]}] = reduce_grad(std::get<{j}>(r), "
                              f"input_meta[{pos[n]}]);\n")
                ap.append("    }\n  }\n")
        ap.append("  return out;\n}\n\n")
        body.append("".join(ap))
        ret = cpp_ret_type(s.rets)
        writes_self = bool(s.args) and s.args[0].mutable
        if o.inplace_view or writes_self:
            if o.inplace_view:  # t_, squeeze_, ...: Note [in-place view ops] (ember/ops/ops.yaml)
                if saved_r or "self" in [a.name for a in saved_t] or multi:
                    raise SystemExit(f"gen_ops: {s.full()}: a formula of an in-place view op cannot save self or "
                                     f"result (use self_sizes or self_geometry)")
                history = "set_inplace_view_history(self, node);"
            else:  # copy_, fill_, zero_: recorded before self is overwritten (Note [views and in-place])
                if saved_r or "self" in [a.name for a in saved_t]:
                    raise SystemExit(f"gen_ops: {s.full()}: a formula of an op writing self cannot use self or result")
                if saved_o:
                    raise SystemExit(f"gen_ops: {s.full()}: an op writing self saves no non-Tensor arguments yet")
                history = f"rebase_history(self, node, {0 if diff and diff[0].name == 'self' else -1});"
            k = [f"Tensor {kname}({params}) {{\n{handle}"
                 f"  if (!GradMode::is_enabled() || !({any_rg}) || !is_differentiable_dtype(self.dtype())) {{\n"
                 f"    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);\n    return {call};\n  }}\n"
                 f"  check_inplace(self);\n"
                 f"  auto node = std::make_shared<{node}>();\n  node->sequence_nr = next_sequence_nr();\n"]
            k += record_inputs(s, diff, saved_t, saved_o, saved_g)
            k.append(f"  {{\n    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);\n    {call};\n  }}\n"
                     f"  {history}\n  return self;\n}}\n\n")
            body.append("".join(k))
            reg.append(f"  m.impl({cstr(s.full())}, DispatchKey::Autograd, "
                       f"static_cast<{o.fn_ptr_type()}>(&{kname}));\n")
            continue
        if list_out:
            outs = None
        elif multi:
            outs = [f"std::get<{i}>(result)" for i in range(len(s.rets))]
        else:
            outs = ["result"]
        view = bool(s.rets and s.rets[0].alias)
        refuse = refuse_requires_grad(o)
        k = [f"{ret} {kname}({params}) {{\n{handle}{refuse}  {ret} result;\n  {{\n"
             f"    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);\n    result = {call};\n  }}\n"
             + ("  if (!GradMode::is_enabled() && requires_grad(self)) mark_no_grad_view(result);\n"
                if view and not multi else "")]
        # output_differentiability: which results get a grad_fn (PyTorch's field of that name).
        out_diff = o.entry.get("output_differentiability", [True] * len(s.rets))
        if outs is None:
            floating = "differentiable(result)"
        else:
            floating = " || ".join(f"floating_output({x})" for x, r, d in zip(outs, s.rets, out_diff)
                                   if r.type == "Tensor" and d)
        k.append(f"  if (!GradMode::is_enabled() || !({any_rg}) || !({floating})) return result;\n"
                 f"  auto node = std::make_shared<{node}>();\n  node->sequence_nr = next_sequence_nr();\n")
        k += record_inputs(s, diff, saved_t, saved_o, saved_g)
        if outs is None:
            k.append(f"  set_list_history(result, node, node->output_meta_, {str(view).lower()});\n")
        else:
            if multi:
                k.append(f"  node->num_outputs = {len(outs)};\n")
            for i, x in enumerate(outs):
                if s.rets[i].type != "Tensor":
                    continue
                if out_diff[i]:
                    k.append(f"  if (floating_output({x})) set_history({x}, node, {i});\n")
                if multi:
                    k.append(f"  node->output_meta_.push_back(meta_of({x}));\n")
                if view:
                    k.append(f"  mark_view({x});  // Note [views and in-place]\n")
            for i in saved_r:
                k.append(f"  node->result{i}_ = SavedVariable({outs[i]}, true);\n")
        k.append("  return result;\n}\n\n")
        body.append("".join(k))
        reg.append(f"  m.impl({cstr(s.full())}, DispatchKey::Autograd, static_cast<{o.fn_ptr_type()}>(&{kname}));\n")
    text = [HEADER,
            "// Backward nodes and Autograd-key kernels of the ops with a `grad:` entry. See Note [autograd dispatch]\n"
            "// in ember/autograd/VariableKernels.h.\n"
            '#include <algorithm>\n#include <array>\n\n#include "ember/autograd/VariableKernels.h"\n\n',
            "namespace ember::autograd::generated {\n\nusing namespace ember::autograd::detail;\n\n",
            "".join(body), "}  // namespace ember::autograd::generated\n\nnamespace ember::autograd {\n\n"
            "/// Registers the Autograd-key kernel of every op with a derivative.\n"
            "void register_autograd_kernels(Library& m) {\n  using namespace generated;\n",
            "".join(reg), "}\n\n}  // namespace ember::autograd\n"]
    return {"ember/autograd/generated/Functions.cpp": "".join(text)}


def record_inputs(s, diff, saved_t, saved_o, saved_g):
    """C++ statements of an Autograd-key kernel filling a new `node`: its input edges and metadata, the saved
    tensors, non-tensor arguments and geometries its formulas read."""
    k = []
    for a in diff:
        if a.type == "Tensor[]":
            k.append(f"  node->{a.name}_size_ = {a.name}.size();\n")
        k.append(f"  add_input(*node, {a.name});\n")
    for a in saved_t:
        if a.type == "Tensor[]":
            k.append(f"  for (const Tensor& t : {a.name}) node->{a.name}_.emplace_back(t, false);\n")
        elif a.type == "Tensor?":
            k.append(f"  node->{a.name}_ = SavedVariable({a.name} ? *{a.name} : Tensor(), false);\n")
        else:
            k.append(f"  node->{a.name}_ = SavedVariable({a.name}, false);\n")
    for a, t in saved_o:
        conv = {"std::vector<int64_t>": f"std::vector<int64_t>({a.name}.begin(), {a.name}.end())",
                "std::optional<std::vector<int64_t>>":
                    f"{a.name} ? std::optional<std::vector<int64_t>>(std::vector<int64_t>({a.name}->begin(), "
                    f"{a.name}->end())) : std::nullopt",
                "std::string": f"std::string({a.name})",
                "std::optional<std::string>": f"{a.name} ? std::optional<std::string>(std::string(*{a.name})) : "
                                              f"std::nullopt",
                }.get(saved_type(s, a, t)[0], a.name)
        k.append(f"  node->{a.name}_ = {conv};\n")
    for a in saved_g:
        k.append(f"  node->{a.name}_geometry_ = TensorGeometry({a.name});\n")
    return k


def saved_type(s, a, t):
    """(member type, how apply() reads it back) of a non-tensor argument saved in a node."""
    if t.startswith("std::array<"):
        return (t, "const " + t + "& {n} = {n}_;")
    if t not in SAVED_TYPES:
        raise SystemExit(f"gen_ops: {s.full()}: cannot save argument {a.name} of type {t}")
    return SAVED_TYPES[t]


def gen_inplace_or_view(ops):
    """ADInplaceOrView-key kernels (Note [version counter], Note [view base]): every op that writes an argument
    bumps its version once after running below the key; every view op records its result's base. Ops written as
    CompositeImplicitAutograd need none (their inner ops are seen), nor does detach (not a view to autograd)."""
    body, reg = [], []
    for o in ops:
        s = o.schema
        if o.composite or s.name.split("::")[-1] == "detach":
            continue
        written = [a for a in s.args if a.mutable]
        views = [r for r in s.rets if r.alias and not r.alias.endswith("!")]
        if not written and not views:
            continue
        base = s.name.split("::")[-1]
        kname = base + ("_" + s.overload if s.overload else "")
        params = o.cpp_params(False)
        names = ", ".join(a.name for a in s.args)
        ret = cpp_ret_type(s.rets)
        k = [f"{ret} {kname}({params}) {{\n"
             f"  static const OperatorHandle h = Dispatcher::singleton().find_or_throw({cstr(s.full())});\n"
             f"  {ret} result = [&] {{\n    ExcludeDispatchKeyGuard guard(DispatchKey::ADInplaceOrView);\n"
             f"    return h.call<{o.call_types()}>({names});\n  }}();\n"]
        for a in written:
            k.append(f"  {a.name}.impl()->bump_version();\n")
        if views:
            if len(s.rets) != 1 or s.rets[0].type not in ("Tensor", "Tensor[]"):
                raise SystemExit(f"gen_ops: {s.full()}: view ops returning {s.rets[0].type} need a base rule")
            src = [a for a in s.args if a.alias and a.alias.split()[0] == views[0].alias]
            if s.rets[0].type == "Tensor[]":  # split, unbind: every element is a view of the input
                k.append(f"  for (const Tensor& t : result) record_view_base(t, {src[0].name});\n")
            else:
                k.append(f"  record_view_base(result, {src[0].name});\n")
        k.append("  return result;\n}\n\n")
        body.append("".join(k))
        reg.append(f"  m.impl({cstr(s.full())}, DispatchKey::ADInplaceOrView, "
                   f"static_cast<{o.fn_ptr_type()}>(&{kname}));\n")
    text = [HEADER,
            "// ADInplaceOrView-key kernels: version counter bumps of the ops that write an argument and the bases of\n"
            "// views. See Note [version counter] in ember/dispatch/Dispatcher.h.\n"
            '#include "ember/autograd/InplaceOrView.h"\n\n'
            "namespace ember::autograd::inplace_or_view {\n\n", "".join(body),
            "}  // namespace ember::autograd::inplace_or_view\n\nnamespace ember::autograd {\n\n"
            "/// Registers the ADInplaceOrView kernel of every op that writes an argument or returns a view.\n"
            "void register_inplace_or_view_kernels(Library& m) {\n  using namespace inplace_or_view;\n",
            "".join(reg), "}\n\n}  // namespace ember::autograd\n"]
    return {"ember/autograd/generated/ADInplaceOrView.cpp": "".join(text)}



def gen_non_differentiable(ops):
    """The ops whose floating results never require grad (`differentiable: false`), for the Autograd key's
    fallback (Note [ops without a derivative], ember/autograd/Fallback.cpp)."""
    rows = []
    for o in ops:
        if o.entry.get("differentiable", True) is False:
            rows.append(f"    {{{cstr(o.schema.name if '::' in o.schema.name else 'aten::' + o.schema.name)}, "
                        f"{cstr(o.schema.overload)}}},\n")
    text = [HEADER, "#pragma once\n// The ops whose floating results PyTorch leaves without a gradient: the "
                    "database's\n"
            "// `differentiable: false`. Read by ember/autograd/Fallback.cpp (Note [ops without a derivative]).\n"
            "#include <string_view>\n\nnamespace ember::autograd {\n\n"
            "struct OpName {\n  std::string_view name;      // \"aten::detach\"\n  std::string_view overload;  // "
            "\"\" or \"p\"\n};\n\n"
            "inline constexpr OpName kNonDifferentiable[] = "
            "{\n", "".join(rows), "};\n\n}  // namespace ember::autograd\n"]
    return {"ember/autograd/generated/NonDifferentiable.h": "".join(text)}
