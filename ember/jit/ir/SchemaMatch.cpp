// Overload resolution for op nodes (Note [schema matching] in Graph.h) and Graph::insert_op.
#include <string>

#include "ember/base/Error.h"
#include "ember/jit/ir/Graph.h"

namespace ember::jit {

bool matches_schema_type(const Type& t, const SchemaType& s) {
  using K = SchemaType::Kind;
  if (t.kind() == TypeKind::Any || s.kind == K::Any) return true;
  switch (s.kind) {
    case K::Tensor: return t.kind() == TypeKind::Tensor;
    case K::Int:
    case K::ScalarType:
    case K::Layout:
    case K::MemoryFormat: return t.kind() == TypeKind::Int;
    case K::Float: return t.kind() == TypeKind::Float || t.kind() == TypeKind::Int;
    case K::Bool: return t.kind() == TypeKind::Bool;
    case K::Str: return t.kind() == TypeKind::Str;
    case K::Scalar:
      return t.kind() == TypeKind::Int || t.kind() == TypeKind::Float || t.kind() == TypeKind::Bool ||
             t.kind() == TypeKind::Number;
    case K::Device: return t.kind() == TypeKind::Device;
    case K::Generator: return false;  // generators reach graphs only as None for a Generator? argument
    case K::List:
      if (s.fixed_size >= 0 && s.elem->kind == K::Int && t.kind() == TypeKind::Int) return true;  // int[2] <- 3
      return t.kind() == TypeKind::List && matches_schema_type(*t.cast<ListType>()->elem(), *s.elem);
    case K::Optional:
      if (t.kind() == TypeKind::None) return true;
      if (t.kind() == TypeKind::Optional) return matches_schema_type(*t.cast<OptionalType>()->elem(), *s.elem);
      return matches_schema_type(t, *s.elem);
    case K::Any: return true;
  }
  return false;
}

TypePtr type_from_schema(const SchemaType& s) {
  using K = SchemaType::Kind;
  switch (s.kind) {
    case K::Tensor: return Type::tensor_type();
    case K::Int:
    case K::ScalarType:
    case K::Layout:
    case K::MemoryFormat: return Type::int_type();
    case K::Float: return Type::float_type();
    case K::Bool: return Type::bool_type();
    case K::Str: return Type::str_type();
    case K::Scalar: return Type::number_type();
    case K::Device: return Type::device_type();
    case K::List: return ListType::create(type_from_schema(*s.elem));
    case K::Optional: return OptionalType::create(type_from_schema(*s.elem));
    case K::Generator:
    case K::Any: return Type::any_type();
  }
  return Type::any_type();
}

namespace {
bool fits(const FunctionSchema& s, std::span<Value* const> inputs) {
  if (s.arguments.size() != inputs.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!matches_schema_type(*inputs[i]->type(), s.arguments[i].type)) return false;
  return true;
}

std::string input_types(std::span<Value* const> inputs) {
  std::string r = "(";
  for (size_t i = 0; i < inputs.size(); ++i) r += (i ? ", " : "") + inputs[i]->type()->str();
  return r + ")";
}

// Why no overload of `name` fits these inputs, for schema() and insert_op().
[[noreturn]] void no_match(std::string_view name, std::span<Value* const> inputs, const std::string& where) {
  auto ops = Dispatcher::singleton().overloads(name);
  EMBER_CHECK(!ops.empty(), "jit: unknown operator {}{}: no op of that name is registered (a library defining it "
              "may need loading)", name, where);
  std::string cands;
  for (const OperatorHandle& op : ops) cands += "\n  " + op.schema().str();
  EMBER_FAIL("jit: no overload of {} accepts {} input(s) of types {}{} (graphs pass every argument, defaults "
             "included); candidates:{}", name, inputs.size(), input_types(inputs), where, cands);
}
}  // namespace

void Node::resolve_schema() const {
  schema_state_ = SchemaState::Missing;
  if (!is_op()) return;
  for (const OperatorHandle& op : Dispatcher::singleton().overloads(kind_.qual_string())) {
    if (fits(op.schema(), inputs_)) {
      op_ = op;
      schema_state_ = SchemaState::Found;
      return;
    }
  }
}

const FunctionSchema* Node::maybe_schema() const {
  if (schema_state_ == SchemaState::Unresolved) resolve_schema();
  return schema_state_ == SchemaState::Found ? &op_.schema() : nullptr;
}

const FunctionSchema& Node::schema() const {
  if (const FunctionSchema* s = maybe_schema()) return *s;
  EMBER_CHECK(is_op(), "jit: {} is a primitive, not an operator with a schema", kind_.qual_string());
  no_match(kind_.qual_string(), inputs_, " in: " + str());
}

OperatorHandle Node::op() const {
  schema();
  return op_;
}

Node* Graph::insert_op(std::string_view qualified_name, std::span<Value* const> inputs) {
  size_t sep = qualified_name.find("::");
  size_t dot = qualified_name.find('.', sep == std::string_view::npos ? 0 : sep + 2);
  std::string_view name = qualified_name.substr(0, dot);
  EMBER_CHECK(Symbol::from_qual_string(name).id() >= static_cast<uint32_t>(detail::BuiltinSymbol::NumBuiltins),
              "jit: insert_op: {} is a primitive of the IR; use create()", name);
  OperatorHandle op;
  if (dot != std::string_view::npos) {
    op = Dispatcher::singleton().find_or_throw(qualified_name);
  } else {
    for (const OperatorHandle& o : Dispatcher::singleton().overloads(name)) {
      if (fits(o.schema(), inputs)) {
        op = o;
        break;
      }
    }
    if (!op.valid()) no_match(name, inputs, "");
  }
  return insert_op(op, inputs);
}

Node* Graph::insert_op(const OperatorHandle& op, std::span<Value* const> inputs) {
  EMBER_CHECK(op.valid(), "jit: insert_op: invalid operator handle");
  EMBER_CHECK(fits(op.schema(), inputs), "jit: insert_op: {} does not accept {} input(s) of types {}",
              op.schema().str(), inputs.size(), input_types(inputs));
  Node* n = create(Symbol::from_qual_string(op.schema().name), inputs, 0);
  for (const SchemaArgument& r : op.schema().returns) n->add_output()->set_type(type_from_schema(r.type));
  n->op_ = op;
  n->schema_state_ = Node::SchemaState::Found;
  return insert_node(n);
}

}  // namespace ember::jit
