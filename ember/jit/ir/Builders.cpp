// Graph's helpers that build and insert primitive nodes, and Graph::copy.
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "ember/base/Error.h"
#include "ember/jit/ir/Graph.h"

namespace ember::jit {

Value* Graph::insert_list(TypePtr elem_type, std::span<Value* const> values) {
  EMBER_CHECK(elem_type, "jit: insert_list: null element type");
  for (Value* v : values)
    EMBER_CHECK(v->type()->is_subtype_of(*elem_type), "jit: insert_list: %{} of type {} is not a {}",
                v->display_name(), v->type()->str(), elem_type->str());
  Node* n = create(prim::ListConstruct, values, 1);
  n->output()->set_type(ListType::create(std::move(elem_type)));
  return insert_node(n)->output();
}

Node* Graph::insert_list_unpack(Value* list, size_t count) {
  const auto* lt = list->type()->cast<ListType>();
  EMBER_CHECK(lt, "jit: insert_list_unpack: %{} is a {}, not a list", list->display_name(), list->type()->str());
  Node* n = create(prim::ListUnpack, {list}, count);
  for (Value* o : n->outputs()) o->set_type(lt->elem());
  return insert_node(n);
}

Value* Graph::insert_tuple(std::span<Value* const> values) {
  std::vector<TypePtr> types;
  for (Value* v : values) types.push_back(v->type());
  Node* n = create(prim::TupleConstruct, values, 1);
  n->output()->set_type(TupleType::create(std::move(types)));
  return insert_node(n)->output();
}

Node* Graph::insert_tuple_unpack(Value* tuple) {
  const auto* tt = tuple->type()->cast<TupleType>();
  EMBER_CHECK(tt, "jit: insert_tuple_unpack: %{} is a {}, not a tuple", tuple->display_name(), tuple->type()->str());
  Node* n = create(prim::TupleUnpack, {tuple}, tt->elements().size());
  for (size_t i = 0; i < tt->elements().size(); ++i) n->output(i)->set_type(tt->elements()[i]);
  return insert_node(n);
}

Value* Graph::insert_dict(TypePtr key_type, TypePtr value_type, std::span<Value* const> keys,
                          std::span<Value* const> values) {
  EMBER_CHECK(keys.size() == values.size(), "jit: insert_dict: {} keys but {} values", keys.size(), values.size());
  TypePtr t = DictType::create(std::move(key_type), std::move(value_type));
  Node* n = create(prim::DictConstruct, {}, 1);
  for (size_t i = 0; i < keys.size(); ++i) {
    n->add_input(keys[i]);
    n->add_input(values[i]);
  }
  n->output()->set_type(std::move(t));
  return insert_node(n)->output();
}

Value* Graph::insert_get_attr(Value* obj, const std::string& name, TypePtr type) {
  const auto* ct = obj->type()->cast<ClassType>();
  EMBER_CHECK(ct, "jit: insert_get_attr('{}'): %{} is a {}, not an object of a class type", name,
              obj->display_name(), obj->type()->str());
  TypePtr known = ct->find_attribute(name);
  EMBER_CHECK(known || type, "jit: insert_get_attr: class {} has no attribute '{}' and no type was given",
              ct->name(), name);
  Node* n = create(prim::GetAttr, {obj}, 1);
  n->s_("name", name);
  n->output()->set_type(known ? known : type);
  // Named after the attribute, as TorchScript does (%weight, %_0 for a Sequential's child "0").
  bool digits = name.find_first_not_of("0123456789") == std::string::npos;
  bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
  if (plain && !name.empty()) n->output()->set_debug_name(digits ? "_" + name : name);
  return insert_node(n)->output();
}

Node* Graph::insert_if(Value* cond, size_t num_outputs) {
  Node* n = create(prim::If, {cond}, num_outputs);
  n->add_block();
  n->add_block();
  return insert_node(n);
}

Node* Graph::insert_loop(Value* max_trip_count, Value* cond, std::span<Value* const> carried) {
  Node* n = create(prim::Loop, {max_trip_count, cond}, 0);
  for (Value* v : carried) {
    n->add_input(v);
    n->add_output()->set_type(v->type());
  }
  Block* body = n->add_block();
  body->add_input("", Type::int_type());
  for (Value* v : carried) body->add_input("", v->type());
  return insert_node(n);
}

std::shared_ptr<Graph> Graph::copy() const {
  auto g = std::make_shared<Graph>();
  std::unordered_map<const Value*, Value*> map;
  auto copy_value = [&](const Value* from, Value* to) {
    to->unique_ = from->unique_;
    to->type_ = from->type_;
    if (from->has_debug_name()) g->set_name(to, from->name_);
    map.emplace(from, to);
  };
  auto copy_block = [&](const Block* from, Block* to, auto&& self) -> void {
    for (const Value* v : from->inputs()) copy_value(v, to->add_input());
    for (const Node* n : from->nodes()) {
      Node* m = g->create(n->kind(), {}, 0);
      for (const Value* v : n->inputs()) m->add_input(map.at(v));
      for (const Value* v : n->outputs()) copy_value(v, m->add_output());
      m->attrs_ = n->attrs_;
      m->schema_state_ = n->schema_state_;
      m->op_ = n->op_;
      for (const Block* b : n->blocks()) self(b, m->add_block(), self);
      to->append_node(m);
    }
    for (const Value* v : from->outputs()) to->register_output(map.at(v));
  };
  copy_block(block_, g->block_, copy_block);
  g->next_unique_ = next_unique_;
  g->next_suffix_ = next_suffix_;
  return g;
}

}  // namespace ember::jit
