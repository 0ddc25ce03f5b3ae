// Running Code (Note [interpreter design] in Interpreter.h).
#include "ember/jit/runtime/Interpreter.h"

#include <cstdio>

#include "ember/base/Error.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/jit/runtime/Module.h"

namespace ember::jit {
namespace {

// Note [input type errors]
// A traced graph's input types carry the example's dtype and sizes (x : Float(1, 1, 28, 28)), but a value is
// checked only for its kind: any tensor fits a tensor input (a trace follows other batch sizes; the ops check
// dtypes). So the errors print the type as checked, tensor refinements dropped ("Tensor", "(Tensor, int)"),
// and the kind of the value given, never the example's shape, which would suggest it was required.

/// The type as the runtime checks it: its text with every tensor type printed as plain "Tensor".
std::string checked_str(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Tensor: return "Tensor";
    case TypeKind::List: return checked_str(*t.cast<ListType>()->elem()) + "[]";
    case TypeKind::Optional: return checked_str(*t.cast<OptionalType>()->elem()) + "?";
    case TypeKind::Tuple: {
      std::string r;
      for (const TypePtr& e : t.cast<TupleType>()->elements()) r += (r.empty() ? "" : ", ") + checked_str(*e);
      return "(" + r + ")";
    }
    case TypeKind::Dict: {
      const auto* d = t.cast<DictType>();
      return "Dict(" + checked_str(*d->key()) + ", " + checked_str(*d->value()) + ")";
    }
    default: return t.str();
  }
}

/// What a value is, for errors: "int 3", "str \"a\"", "tuple (1, 2)"; tensors and None as IValue::repr() says.
std::string describe(const IValue& v) {
  const char* kind = "";
  switch (v.tag()) {
    case IValue::Tag::Bool: kind = "bool "; break;
    case IValue::Tag::Int: kind = "int "; break;
    case IValue::Tag::Double: kind = "float "; break;
    case IValue::Tag::String: kind = "str "; break;
    case IValue::Tag::IntList:
    case IValue::Tag::TensorList:
    case IValue::Tag::List: kind = "list "; break;
    case IValue::Tag::Tuple: kind = "tuple "; break;
    case IValue::Tag::Dict: kind = "dict "; break;
    default: break;  // None, tensors, dtypes, devices and generators say what they are
  }
  return kind + v.repr();
}

}  // namespace

bool fits(IValue& v, const Type& t, std::string& what) {
  auto fail = [&] {
    what = fmt::format("expected a value of type {} but got {}", checked_str(t), describe(v));
    return false;
  };
  switch (t.kind()) {
    case TypeKind::Any: return true;
    case TypeKind::Tensor: return v.is_tensor() ? true : fail();
    case TypeKind::Int: return v.is_int() ? true : fail();
    case TypeKind::Float:
      if (v.is_int()) v = IValue(v.to_double());
      return v.is_double() ? true : fail();
    case TypeKind::Bool: return v.is_bool() ? true : fail();
    case TypeKind::Str: return v.is_string() ? true : fail();
    case TypeKind::None: return v.is_none() ? true : fail();
    case TypeKind::Device: return v.tag() == IValue::Tag::Device ? true : fail();
    case TypeKind::Number: return v.is_scalar() ? true : fail();
    case TypeKind::Optional: return v.is_none() || fits(v, *t.cast<OptionalType>()->elem(), what);
    case TypeKind::List: {
      const Type& e = *t.cast<ListType>()->elem();
      if (e.kind() == TypeKind::Int && v.is_int_list()) return true;
      if (e.kind() == TypeKind::Tensor && v.is_tensor_list()) return true;
      if (!v.is_list()) return fail();
      std::vector<IValue> items = v.to_list();
      for (IValue& x : items)
        if (!fits(x, e, what)) return false;
      if (e.kind() == TypeKind::Int) {
        std::vector<int64_t> l;
        for (const IValue& x : items) l.push_back(x.to_int());
        v = IValue(std::move(l));
      } else if (e.kind() == TypeKind::Tensor) {
        std::vector<Tensor> l;
        for (const IValue& x : items) l.push_back(x.to_tensor());
        v = IValue(std::move(l));
      } else {
        v = IValue::list(std::move(items));
      }
      return true;
    }
    case TypeKind::Tuple: {
      const auto& elems = t.cast<TupleType>()->elements();
      if (!v.is_tuple() || v.to_tuple().size() != elems.size()) return fail();
      std::vector<IValue> items = v.to_tuple();
      for (size_t i = 0; i < items.size(); ++i)
        if (!fits(items[i], *elems[i], what)) return false;
      v = IValue::tuple(std::move(items));
      return true;
    }
    case TypeKind::Dict: {
      if (v.tag() != IValue::Tag::Dict) return fail();
      const auto* dt = t.cast<DictType>();
      std::vector<std::pair<IValue, IValue>> items = v.to_dict();
      for (auto& [k, x] : items)
        if (!fits(k, *dt->key(), what) || !fits(x, *dt->value(), what)) return false;
      v = IValue::dict(std::move(items));
      return true;
    }
    case TypeKind::Class: return fail();
  }
  return fail();
}

namespace {

// Builds the list of ListConstruct (aux: 0 generic, 1 int[], 2 Tensor[]).
IValue make_list(std::vector<IValue>&& items, uint32_t kind) {
  if (kind == 1) {
    std::vector<int64_t> l(items.size());
    for (size_t i = 0; i < items.size(); ++i) l[i] = items[i].to_int();
    return IValue(std::move(l));
  }
  if (kind == 2) {
    std::vector<Tensor> l;
    l.reserve(items.size());
    for (IValue& x : items) l.push_back(x.to_tensor());
    return IValue(std::move(l));
  }
  return IValue::list(std::move(items));
}

// The elements of any list or tuple value.
std::vector<IValue> elements(const IValue& v) {
  if (v.is_int_list()) {
    IntArrayRef l = v.to_int_list();
    return std::vector<IValue>(l.begin(), l.end());
  }
  if (v.is_tensor_list()) {
    TensorList l = v.to_tensor_list();
    return std::vector<IValue>(l.begin(), l.end());
  }
  return v.to_list();
}

// One call's state: registers and the argument stack (Note [module thread safety] in Module.h).
struct Frame {
  const Code& code;
  std::vector<IValue> regs;
  Stack stack;
  size_t pc = 0;  // the next instruction

  IValue fetch(Operand o) {
    if (o.constant) return code.constants[o.index];
    if (o.move) return std::move(regs[o.index]);
    return regs[o.index];
  }
  void store(Operand o, IValue&& v) {
    if (!o.move) regs[o.index] = std::move(v);  // move on an output operand: no register, discard
  }
  const Operand* in(const Instruction& i) const { return code.operands.data() + i.in; }
  const Operand* out(const Instruction& i) const { return code.operands.data() + i.out; }

  // Stores the n values on top of the stack into the outputs of i, and pops them.
  void pop_outputs(const Instruction& i, size_t n) {
    const Operand* o = out(i);
    size_t base = stack.size() - n;
    for (size_t k = 0; k < n; ++k) store(o[k], std::move(stack[base + k]));
    stack.resize(base);
  }

  void unpack(const Instruction& i, const std::vector<IValue>& items) {
    EMBER_CHECK(items.size() == i.n_out, "expected {} values to unpack, but got {}", i.n_out, items.size());
    for (uint32_t k = 0; k < i.n_out; ++k) store(out(i)[k], IValue(items[k]));
  }

  IValue execute();
};

IValue Frame::execute() {
  for (;;) {
    const Instruction& i = code.instructions[pc++];
    const Operand* a = in(i);
    switch (i.op) {
      case OpCode::CallOp: {
        stack.clear();
        for (uint32_t k = 0; k < i.n_in; ++k) stack.push_back(fetch(a[k]));
        for (const ArgConversion& c : code.conversions[i.aux])
          stack[c.arg] = convert_argument(std::move(stack[c.arg]), c);
        code.ops[i.aux].call_boxed(&stack);
        EMBER_CHECK(stack.size() == i.n_out, "{} returned {} values, the graph expects {}",
                    code.ops[i.aux].schema().full_name(), stack.size(), i.n_out);
        pop_outputs(i, i.n_out);
        break;
      }
      case OpCode::GetAttr: {
        const AttrRef& r = code.attrs[i.aux];
        store(out(i)[0], r.slot == AttrRef::kTrainingSlot ? IValue(r.object->training())
                                                          : IValue(r.object->slot_value(r.slot)));
        break;
      }
      case OpCode::ListConstruct: {
        std::vector<IValue> items;
        items.reserve(i.n_in);
        for (uint32_t k = 0; k < i.n_in; ++k) items.push_back(fetch(a[k]));
        store(out(i)[0], make_list(std::move(items), i.aux));
        break;
      }
      case OpCode::TupleConstruct: {
        std::vector<IValue> items;
        items.reserve(i.n_in);
        for (uint32_t k = 0; k < i.n_in; ++k) items.push_back(fetch(a[k]));
        store(out(i)[0], IValue::tuple(std::move(items)));
        break;
      }
      case OpCode::DictConstruct: {
        std::vector<std::pair<IValue, IValue>> items;
        for (uint32_t k = 0; k + 1 < i.n_in; k += 2) {
          IValue key = fetch(a[k]);
          items.emplace_back(std::move(key), fetch(a[k + 1]));
        }
        store(out(i)[0], IValue::dict(std::move(items)));
        break;
      }
      case OpCode::ListUnpack:
      case OpCode::TupleUnpack: unpack(i, elements(fetch(a[0]))); break;
      case OpCode::TupleIndex: {
        IValue t = fetch(a[0]);
        int64_t k = fetch(a[1]).to_int();
        const std::vector<IValue>& items = t.to_tuple();
        int64_t n = static_cast<int64_t>(items.size());
        EMBER_CHECK_INDEX(k >= -n && k < n, "tuple index {} out of range for a tuple of {} elements", k, n);
        store(out(i)[0], IValue(items[static_cast<size_t>(k < 0 ? k + n : k)]));
        break;
      }
      case OpCode::Move: {
        stack.clear();
        for (uint32_t k = 0; k < i.n_in; ++k) stack.push_back(fetch(a[k]));
        pop_outputs(i, i.n_out);
        break;
      }
      case OpCode::Drop:
        for (uint32_t k = 0; k < i.n_in; ++k) regs[a[k].index] = IValue();
        break;
      case OpCode::Jump: pc = i.aux; break;
      case OpCode::JumpIfFalse:
        if (!fetch(a[0]).to_bool()) pc = i.aux;
        break;
      case OpCode::LoopEnter: store(out(i)[0], IValue(int64_t{0})); break;
      case OpCode::LoopCheck: {
        IValue& counter = regs[a[0].index];
        int64_t c = counter.to_int();
        if (c < regs[a[1].index].to_int() && regs[a[2].index].to_bool()) {
          store(out(i)[0], IValue(c));
          counter = IValue(c + 1);
        } else {
          pc = i.aux;
        }
        break;
      }
      case OpCode::CallMethod: {
        std::vector<IValue> args;
        args.reserve(i.n_in);
        for (uint32_t k = 0; k < i.n_in; ++k) args.push_back(fetch(a[k]));
        IValue r = run(*code.methods[i.aux].code, std::move(args));
        if (i.n_out == 1) store(out(i)[0], std::move(r));
        else if (i.n_out > 1) unpack(i, r.to_tuple());
        break;
      }
      case OpCode::Raise: {
        std::string msg = i.n_in ? fetch(a[0]).to_string() : std::string("Exception");
        if (i.n_in > 1) {
          IValue cls = fetch(a[1]);
          if (cls.is_string()) msg = cls.to_string() + ": " + msg;
        }
        EMBER_FAIL("{}", msg);
      }
      case OpCode::Print: {
        std::string line;
        for (uint32_t k = 0; k < i.n_in; ++k) {
          IValue v = fetch(a[k]);
          line += (k ? " " : "") + (v.is_string() ? v.to_string() : v.repr());
        }
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
        break;
      }
      case OpCode::Return: {
        if (i.n_in == 1) return fetch(a[0]);
        if (i.n_in == 0) return IValue();
        std::vector<IValue> items;
        for (uint32_t k = 0; k < i.n_in; ++k) items.push_back(fetch(a[k]));
        return IValue::tuple(std::move(items));
      }
    }
  }
}

}  // namespace

IValue run(const Code& code, std::vector<IValue> inputs) {
  const size_t n = code.input_types.size();
  auto signature = [&] {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += fmt::format("{}{} : {}", i ? ", " : "", code.input_names[i],
                                                    checked_str(*code.input_types[i]));
    return s;
  };
  EMBER_CHECK(inputs.size() == n, "{}: expected {} input{} ({}) but got {}", code.name, n, n == 1 ? "" : "s",
              signature(), inputs.size());
  Frame f{code, std::vector<IValue>(code.num_registers), {}};
  for (size_t i = 0; i < n; ++i) {
    std::string what;
    EMBER_CHECK(fits(inputs[i], *code.input_types[i], what), "{}: input {} ({} : {}) {}", code.name, i,
                code.input_names[i], checked_str(*code.input_types[i]), what);  // Note [input type errors]
    if (code.input_registers[i] != UINT32_MAX) f.regs[code.input_registers[i]] = std::move(inputs[i]);
  }
  f.stack.reserve(8);
  try {
    return f.execute();
  } catch (const Error& e) {
    // Only the innermost frame adds the node (a CallMethod's callee already named its own).
    std::string_view msg = e.what();
    if (msg.find("\n  in node: ") != std::string_view::npos)
      EMBER_FAIL_KIND(e.kind(), "{}: {}", code.name, msg);
    const Instruction& at = code.instructions[f.pc - 1];
    EMBER_FAIL_KIND(e.kind(), "{}: {}\n  in node: {}", code.name, msg, code.node_lines[at.node]);
  }
}

Function::Function(std::string name, std::shared_ptr<Graph> g) : graph_(std::move(g)) {
  EMBER_CHECK(graph_ != nullptr, "jit::Function {}: null graph", name);
  code_ = compile(*graph_, std::move(name));
}

Function::Function(std::string name, std::string_view ir_text) : Function(name, parse_ir(ir_text)) {}

std::string Code::dump() const {
  static const char* names[] = {"CallOp", "GetAttr", "ListConstruct", "ListUnpack", "TupleConstruct",
                                "TupleUnpack", "TupleIndex", "DictConstruct", "Move", "Drop", "Jump",
                                "JumpIfFalse", "LoopEnter", "LoopCheck", "CallMethod", "Raise", "Print", "Return"};
  auto opnd = [&](Operand o, bool output) -> std::string {
    if (o.constant) return fmt::format("c{}", uint32_t{o.index});
    if (output && o.move) return "_";
    return fmt::format("{}r{}", !output && o.move ? "^" : "", uint32_t{o.index});
  };
  std::string s;
  for (size_t k = 0; k < instructions.size(); ++k) {
    const Instruction& i = instructions[k];
    s += fmt::format("{:3} {}", k, names[static_cast<int>(i.op)]);
    if (i.op == OpCode::CallOp) s += " " + ops[i.aux].schema().full_name();
    if (i.op == OpCode::Jump || i.op == OpCode::JumpIfFalse || i.op == OpCode::LoopCheck)
      s += fmt::format(" ->{}", i.aux);
    s += " (";
    for (uint32_t j = 0; j < i.n_in; ++j) s += (j ? ", " : "") + opnd(operands[i.in + j], false);
    s += ")";
    if (i.n_out) {
      s += " -> ";
      for (uint32_t j = 0; j < i.n_out; ++j) s += (j ? ", " : "") + opnd(operands[i.out + j], true);
    }
    s += "\n";
  }
  return s;
}

}  // namespace ember::jit
