// Graph -> Code (Note [interpreter design] in Interpreter.h, Note [freeing at last use] in Code.h).
#include <map>
#include <set>
#include <unordered_map>

#include "ember/base/Error.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/jit/ir/Verifier.h"
#include "ember/jit/runtime/Interpreter.h"
#include "ember/jit/runtime/Module.h"

namespace ember::jit {
namespace {

constexpr uint32_t kNoReg = UINT32_MAX;

class Lowering {
 public:
  Lowering(Code& code, const Object* self) : code_(code), self_(self) {}

  void run(const Graph& g) {
    number(g.block());
    std::span<Value* const> inputs = g.inputs();
    size_t first = 0;
    if (self_) {
      EMBER_CHECK(!inputs.empty() && inputs[0]->type()->kind() == TypeKind::Class,
                  "{}: a method's graph takes the module object (%self : {}) as its first input", code_.name,
                  self_->type()->name());
      objects_[inputs[0]] = self_;
      first = 1;
      code_.has_self = true;
    }
    for (size_t i = first; i < inputs.size(); ++i) {
      Value* v = inputs[i];
      EMBER_CHECK(v->type()->kind() != TypeKind::Class, "{}: input %{} is a module object ({}); only the first "
                  "input of a method may be", code_.name, v->display_name(), v->type()->str());
      code_.input_registers.push_back(define(v));
      code_.input_types.push_back(v->type());
      code_.input_names.push_back(v->display_name());
    }
    plan_block(g.block());
    emit_block(g.block());
    emit(OpCode::Return, operands(g.return_node()), {}, 0, g.return_node());
  }

 private:
  // ---- planning (Note [freeing at last use])
  void number(const Block* b) {
    for (Node* n : b->nodes()) {
      order_[n] = next_order_++;
      for (const Block* sub : n->blocks()) number(sub);
    }
    order_[b->return_node()] = next_order_++;
  }

  void plan_block(const Block* b) {
    for (Value* v : b->inputs()) plan_value(v, b);
    for (Node* n : b->nodes()) {
      for (Value* v : n->outputs()) plan_value(v, b);
      for (const Block* sub : n->blocks()) plan_block(sub);
    }
  }

  void plan_value(const Value* v, const Block* b) {
    if (!v->has_uses() || objects_.count(v) || v->node()->kind() == prim::Constant) return;
    if (v->type()->kind() == TypeKind::Class) return;  // module objects: checked where used
    plan_release(v, b);
  }

  // Plans where v (defined in b or in a block enclosing b) is released along b.
  void plan_release(const Value* v, const Block* b) {
    const Node* last = nullptr;
    for (const Use& u : v->uses()) {
      const Node* a = ancestor_in_or_null(u.user, b);
      if (a && (!last || order_.at(a) > order_.at(last))) last = a;
    }
    if (!last) {
      drop_at_start_[b].push_back(v);
      return;
    }
    bool nested = false;
    size_t last_direct = SIZE_MAX;
    for (const Use& u : v->uses()) {
      if (u.user == last) last_direct = last_direct == SIZE_MAX ? u.offset : std::max(last_direct, u.offset);
      else if (ancestor_in_or_null(u.user, b) == last) nested = true;
    }
    if (!nested) {
      moves_.insert({last, last_direct});
    } else if (last->kind() == prim::Loop) {
      drop_after_[last].push_back(v);
    } else {
      for (const Block* sub : last->blocks()) plan_release(v, sub);
    }
  }

  // The node of block b that holds `user` (the user itself or an ancestor), or null when user is not inside b.
  static const Node* ancestor_in_or_null(const Node* user, const Block* b) {
    while (user && user->owning_block() != b) user = user->owning_block()->owning_node();
    return user;
  }

  // ---- registers and operands
  uint32_t define(const Value* v) {
    if (!v->has_uses()) return kNoReg;
    auto [it, fresh] = regs_.emplace(v, code_.num_registers);
    if (fresh) ++code_.num_registers;
    return it->second;
  }
  uint32_t reg(const Value* v) const {
    auto it = regs_.find(v);
    EMBER_CHECK(it != regs_.end(), "jit: value %{} has no register", v->display_name());
    return it->second;
  }
  uint32_t fresh_register() { return code_.num_registers++; }

  uint32_t add_constant(IValue v) {
    code_.constants.push_back(std::move(v));
    return static_cast<uint32_t>(code_.constants.size() - 1);
  }

  Operand operand_of(const Value* v, const Node* user, size_t index) {
    if (v->node()->kind() == prim::Constant) {
      auto it = constant_index_.find(v);
      if (it == constant_index_.end()) {
        std::optional<IValue> c = constant_value(v);
        EMBER_CHECK(c.has_value(), "jit: constant %{} has no value", v->display_name());
        EMBER_CHECK(!(v->type()->kind() == TypeKind::Tensor && c->is_none()),
                    "{}: tensor constant %{} has no data (graph text read without its tensor table)", code_.name,
                    v->display_name());
        it = constant_index_.emplace(v, add_constant(std::move(*c))).first;
      }
      return Operand{it->second, 1, 0};
    }
    EMBER_CHECK(!objects_.count(v) && v->type()->kind() != TypeKind::Class,
                "{}: module object %{} ({}) can only be used by prim::GetAttr and prim::CallMethod, not by: {}",
                code_.name, v->display_name(), v->type()->str(), node_line(user));
    return Operand{reg(v), 0, moves_.count({user, index}) ? 1u : 0u};
  }
  std::vector<Operand> operands(const Node* n, size_t from = 0) {
    std::vector<Operand> r;
    for (size_t i = from; i < n->num_inputs(); ++i) r.push_back(operand_of(n->input(i), n, i));
    return r;
  }
  std::vector<Operand> outputs(const Node* n) {
    std::vector<Operand> r;
    for (Value* v : n->outputs()) r.push_back(Operand{define(v) & 0x3fffffffu, 0, v->has_uses() ? 0u : 1u});
    return r;
  }
  static Operand out_reg(uint32_t r) { return Operand{r & 0x3fffffffu, 0, r == kNoReg ? 1u : 0u}; }

  // Appends an instruction for node n (its line is the error context); output operands with move=1 mean
  // "discard" (no register: the value is unused).
  size_t emit(OpCode op, const std::vector<Operand>& in, const std::vector<Operand>& out, uint32_t aux,
              const Node* n) {
    Instruction ins;
    ins.op = op;
    ins.in = static_cast<uint32_t>(code_.operands.size());
    ins.n_in = static_cast<uint32_t>(in.size());
    code_.operands.insert(code_.operands.end(), in.begin(), in.end());
    ins.out = static_cast<uint32_t>(code_.operands.size());
    ins.n_out = static_cast<uint32_t>(out.size());
    code_.operands.insert(code_.operands.end(), out.begin(), out.end());
    ins.aux = aux;
    auto [it, fresh] = line_index_.emplace(n, static_cast<uint32_t>(code_.node_lines.size()));
    if (fresh) code_.node_lines.push_back(!n ? "" : n->kind() == prim::Return ? "return" : node_line(n));
    ins.node = it->second;
    code_.instructions.push_back(ins);
    return code_.instructions.size() - 1;
  }
  uint32_t pc() const { return static_cast<uint32_t>(code_.instructions.size()); }

  void emit_drops(const std::vector<const Value*>& vs, const Node* n) {
    if (vs.empty()) return;
    std::vector<Operand> in;
    for (const Value* v : vs) in.push_back(Operand{reg(v), 0, 1});
    emit(OpCode::Drop, in, {}, 0, n);
  }

  // ---- emission
  void emit_block(const Block* b) {
    if (auto it = drop_at_start_.find(b); it != drop_at_start_.end()) emit_drops(it->second, b->owning_node());
    for (Node* n : b->nodes()) {
      emit_node(n);
      if (auto it = drop_after_.find(n); it != drop_after_.end()) emit_drops(it->second, n);
    }
  }

  void emit_node(const Node* n) {
    Symbol k = n->kind();
    if (k == prim::Constant) return;  // read from the constant table by its users
    if (n->is_op()) return emit_op(n);
    if (k == prim::GetAttr) return emit_get_attr(n);
    if (k == prim::ListConstruct) {
      const auto* lt = n->output()->type()->cast<ListType>();
      TypeKind ek = lt ? lt->elem()->kind() : TypeKind::Any;
      uint32_t aux = ek == TypeKind::Int ? 1 : ek == TypeKind::Tensor ? 2 : 0;
      emit(OpCode::ListConstruct, operands(n), outputs(n), aux, n);
    } else if (k == prim::ListUnpack) {
      emit(OpCode::ListUnpack, operands(n), outputs(n), 0, n);
    } else if (k == prim::TupleConstruct) {
      emit(OpCode::TupleConstruct, operands(n), outputs(n), 0, n);
    } else if (k == prim::TupleUnpack) {
      emit(OpCode::TupleUnpack, operands(n), outputs(n), 0, n);
    } else if (k == prim::TupleIndex) {
      emit(OpCode::TupleIndex, operands(n), outputs(n), 0, n);
    } else if (k == prim::DictConstruct) {
      emit(OpCode::DictConstruct, operands(n), outputs(n), 0, n);
    } else if (k == prim::Uninitialized) {
      emit(OpCode::Move, {Operand{add_constant(IValue()), 1, 0}}, outputs(n), 0, n);
    } else if (k == prim::RaiseException) {
      emit(OpCode::Raise, operands(n), outputs(n), 0, n);
    } else if (k == prim::unchecked_cast) {  // a refinement (Optional[T] -> T): the value itself
      emit(OpCode::Move, operands(n), outputs(n), 0, n);
    } else if (k == prim::Print) {
      emit(OpCode::Print, operands(n), outputs(n), 0, n);
    } else if (k == prim::If) {
      emit_if(n);
    } else if (k == prim::Loop) {
      emit_loop(n);
    } else if (k == prim::CallMethod) {
      emit_call_method(n);
    } else {
      EMBER_FAIL("{}: the interpreter does not run {} nodes: {}", code_.name, k.qual_string(), node_line(n));
    }
  }

  void emit_op(const Node* n) {
    const FunctionSchema& s = n->schema();
    std::vector<Operand> in = operands(n);
    std::vector<ArgConversion> conv;
    for (size_t i = 0; i < in.size(); ++i) {
      const SchemaType* st = &s.arguments[i].type;
      if (st->is_optional()) st = st->elem.get();
      TypeKind tk = n->input(i)->type()->kind();
      if (tk == TypeKind::Optional) tk = n->input(i)->type()->cast<OptionalType>()->elem()->kind();
      ArgConversion c{static_cast<uint32_t>(i), Convert::None, 0};
      if (st->kind == SchemaType::Kind::ScalarType && tk == TypeKind::Int) c.how = Convert::IntToDType;
      if (st->kind == SchemaType::Kind::List && st->fixed_size > 0 && tk == TypeKind::Int) {
        c.how = Convert::IntToList;
        c.size = st->fixed_size;
      }
      if (c.how == Convert::None) continue;
      if (in[i].constant) {  // convert once, here
        IValue v = code_.constants[in[i].index];
        in[i].index = add_constant(convert_argument(std::move(v), c));
      } else {
        conv.push_back(c);
      }
    }
    code_.ops.push_back(n->op());
    code_.conversions.push_back(std::move(conv));
    emit(OpCode::CallOp, in, outputs(n), static_cast<uint32_t>(code_.ops.size() - 1), n);
  }

  void emit_get_attr(const Node* n) {
    const Object* obj = object_of(n->input(0), n);
    const std::string& name = n->s("name");
    int64_t slot = obj->find_slot(name);
    if (slot >= 0 && obj->slots()[static_cast<size_t>(slot)].kind == SlotKind::Module) {
      objects_[n->output()] = obj->slots()[static_cast<size_t>(slot)].module.get();
      return;
    }
    uint32_t s;
    if (slot >= 0) s = static_cast<uint32_t>(slot);
    else if (name == "training") s = AttrRef::kTrainingSlot;
    else EMBER_FAIL("{}: module {} has no attribute '{}' (read by: {})", code_.name, obj->type()->name(), name,
                    node_line(n));
    code_.attrs.push_back(AttrRef{obj, s});
    emit(OpCode::GetAttr, {}, outputs(n), static_cast<uint32_t>(code_.attrs.size() - 1), n);
  }

  const Object* object_of(const Value* v, const Node* user) const {
    auto it = objects_.find(v);
    EMBER_CHECK(it != objects_.end(), "{}: {} needs a module object known at compile time (self or one of its "
                "submodules), got %{} : {}", code_.name, node_line(user), v->display_name(), v->type()->str());
    return it->second;
  }

  void emit_call_method(const Node* n) {
    const Object* obj = object_of(n->input(0), n);
    const std::string& name = n->s("name");
    const Method* m = obj->find_method(name);
    EMBER_CHECK(m != nullptr, "{}: module {} has no method '{}' (define it before the methods that call it): {}",
                code_.name, obj->type()->name(), name, node_line(n));
    EMBER_CHECK(m->code->input_types.size() == n->num_inputs() - 1, "{}: {}.{} takes {} inputs, but {} are passed "
                "by: {}", code_.name, obj->type()->name(), name, m->code->input_types.size(), n->num_inputs() - 1,
                node_line(n));
    code_.methods.push_back(MethodRef{m->code, obj});
    emit(OpCode::CallMethod, operands(n, 1), outputs(n), static_cast<uint32_t>(code_.methods.size() - 1), n);
  }

  // The block's outputs moved into `dst` registers.
  void emit_block_outputs(const Block* b, const std::vector<Operand>& dst, const Node* n) {
    if (dst.empty()) return;
    emit(OpCode::Move, operands(b->return_node()), dst, 0, n);
  }

  void emit_if(const Node* n) {
    std::vector<Operand> out = outputs(n);
    size_t jf = emit(OpCode::JumpIfFalse, operands(n), {}, 0, n);
    emit_block(n->blocks()[0]);
    emit_block_outputs(n->blocks()[0], out, n);
    size_t j = emit(OpCode::Jump, {}, {}, 0, n);
    code_.instructions[jf].aux = pc();
    emit_block(n->blocks()[1]);
    emit_block_outputs(n->blocks()[1], out, n);
    code_.instructions[j].aux = pc();
  }

  void emit_loop(const Node* n) {
    const Block* body = n->blocks()[0];
    uint32_t counter = fresh_register(), max = fresh_register(), cond = fresh_register();
    // Carried values live in the body's input registers, which must exist even when the body does not read
    // them: they hold the value that leaves the loop.
    std::vector<Operand> carried;
    for (size_t i = 1; i < body->inputs().size(); ++i) {
      const Value* p = body->inputs()[i];
      auto [it, fresh] = regs_.emplace(p, code_.num_registers);
      if (fresh) ++code_.num_registers;
      carried.push_back(out_reg(it->second));
    }
    std::vector<Operand> entry_dst{out_reg(max), out_reg(cond)};
    entry_dst.insert(entry_dst.end(), carried.begin(), carried.end());
    emit(OpCode::Move, operands(n), entry_dst, 0, n);
    emit(OpCode::LoopEnter, {}, {out_reg(counter)}, 0, n);
    uint32_t head = pc();
    size_t check = emit(OpCode::LoopCheck, {Operand{counter, 0, 0}, Operand{max, 0, 0}, Operand{cond, 0, 0}},
                        {out_reg(define(body->inputs()[0]))}, 0, n);
    emit_block(body);
    std::vector<Operand> back_dst{out_reg(cond)};
    back_dst.insert(back_dst.end(), carried.begin(), carried.end());
    emit_block_outputs(body, back_dst, n);
    emit(OpCode::Jump, {}, {}, head, n);
    code_.instructions[check].aux = pc();
    // Leaving: the carried registers move to the node's outputs; the loop's own registers are released.
    std::vector<Operand> from;
    for (Operand c : carried) from.push_back(Operand{c.index, 0, 1});
    from.push_back(Operand{max, 0, 1});
    from.push_back(Operand{cond, 0, 1});
    from.push_back(Operand{counter, 0, 1});
    std::vector<Operand> to = outputs(n);
    for (int i = 0; i < 3; ++i) to.push_back(out_reg(kNoReg));
    emit(OpCode::Move, from, to, 0, n);
  }

  Code& code_;
  const Object* self_;
  std::unordered_map<const Node*, size_t> order_;
  size_t next_order_ = 0;
  std::unordered_map<const Value*, uint32_t> regs_;
  std::unordered_map<const Value*, const Object*> objects_;
  std::unordered_map<const Value*, uint32_t> constant_index_;
  std::set<std::pair<const Node*, size_t>> moves_;
  std::map<const Block*, std::vector<const Value*>> drop_at_start_;
  std::map<const Node*, std::vector<const Value*>> drop_after_;
  std::unordered_map<const Node*, uint32_t> line_index_;  // node -> its entry of code_.node_lines
};

}  // namespace

IValue convert_argument(IValue v, const ArgConversion& c) {
  if (!v.is_int()) return v;
  switch (c.how) {
    case Convert::IntToDType: return IValue(static_cast<DType>(v.to_int()));
    case Convert::IntToList: return IValue(std::vector<int64_t>(static_cast<size_t>(c.size), v.to_int()));
    case Convert::None: break;
  }
  return v;
}

std::shared_ptr<const Code> compile(const Graph& g, std::string name, const Object* self) {
  try {
    verify(g);
  } catch (const Error& e) {
    EMBER_FAIL_KIND(e.kind(), "{}: {}", name, e.what());  // the verifier's message starts "verify: "
  }
  auto code = std::make_shared<Code>();
  code->name = std::move(name);
  code->graph_text = g.str();
  Lowering(*code, self).run(g);
  return code;
}

}  // namespace ember::jit
