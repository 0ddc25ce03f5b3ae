// prim::Constant nodes from IValues and back (Note [attribute kinds] in Attributes.h).
#include "ember/base/Error.h"
#include "ember/jit/ir/Graph.h"

namespace ember::jit {

Value* Graph::insert_constant(const IValue& v) {
  Node* n = create(prim::Constant, {}, 1);
  Value* out = n->output();
  try {
    switch (v.tag()) {
      case IValue::Tag::None: out->set_type(Type::none_type()); break;
      case IValue::Tag::Bool: n->i_("value", v.to_bool()), out->set_type(Type::bool_type()); break;
      case IValue::Tag::Int: n->i_("value", v.to_int()), out->set_type(Type::int_type()); break;
      case IValue::Tag::Double: n->f_("value", v.to_double()), out->set_type(Type::float_type()); break;
      case IValue::Tag::String: n->s_("value", v.to_string()), out->set_type(Type::str_type()); break;
      case IValue::Tag::DType:
        n->i_("value", static_cast<int64_t>(v.to_dtype())), out->set_type(Type::int_type());
        break;
      case IValue::Tag::Device: n->s_("value", v.to_device().str()), out->set_type(Type::device_type()); break;
      case IValue::Tag::Tensor:
        EMBER_CHECK(v.to_tensor().defined(), "jit: insert_constant: an undefined tensor cannot be a constant");
        n->t_("value", v.to_tensor()), out->set_type(TensorType::from_tensor(v.to_tensor()));
        break;
      case IValue::Tag::IntList: {
        IntArrayRef l = v.to_int_list();
        n->is_("value", std::vector<int64_t>(l.begin(), l.end()));
        out->set_type(ListType::create(Type::int_type()));
        break;
      }
      case IValue::Tag::List: {
        const std::vector<IValue>& l = v.to_list();
        EMBER_CHECK(!l.empty(), "jit: insert_constant: the element type of an empty generic list is unknown");
        auto all = [&](IValue::Tag t) {
          for (const IValue& e : l)
            if (e.tag() != t) return false;
          return true;
        };
        if (all(IValue::Tag::Double)) {
          std::vector<double> d;
          for (const IValue& e : l) d.push_back(e.to_double());
          n->fs_("value", std::move(d)), out->set_type(ListType::create(Type::float_type()));
        } else if (all(IValue::Tag::Bool) || all(IValue::Tag::Int)) {
          std::vector<int64_t> d;
          for (const IValue& e : l) d.push_back(e.is_bool() ? e.to_bool() : e.to_int());
          n->is_("value", std::move(d));
          out->set_type(ListType::create(l[0].is_bool() ? Type::bool_type() : Type::int_type()));
        } else if (all(IValue::Tag::String)) {
          std::vector<std::string> d;
          for (const IValue& e : l) d.push_back(e.to_string());
          n->ss_("value", std::move(d)), out->set_type(ListType::create(Type::str_type()));
        } else {
          EMBER_FAIL("jit: insert_constant: a list constant holds only floats, bools, ints or strs, not {}",
                     v.repr());
        }
        break;
      }
      default:
        EMBER_FAIL("jit: insert_constant: a {} cannot be a constant (build it with prim:: nodes)", v.tag_name());
    }
  } catch (...) {
    n->destroy();
    throw;
  }
  return insert_node(n)->output();
}

std::optional<IValue> constant_value(const Value* v) {
  const Node* n = v->node();
  if (n->kind() != prim::Constant) return std::nullopt;
  const Attribute* a = n->find_attribute("value");
  if (!a) return IValue();
  const Type& t = *v->type();
  switch (a->kind()) {
    case AttributeKind::i: {
      int64_t i = std::get<int64_t>(a->value);
      if (t.kind() == TypeKind::Bool) return IValue(i != 0);
      return IValue(i);
    }
    case AttributeKind::f: return IValue(std::get<double>(a->value));
    case AttributeKind::s:
      if (t.kind() == TypeKind::Device) return IValue(Device(std::get<std::string>(a->value)));
      return IValue(std::get<std::string>(a->value));
    case AttributeKind::is: {
      const auto& l = std::get<std::vector<int64_t>>(a->value);
      const auto* lt = t.cast<ListType>();
      if (lt && lt->elem()->kind() == TypeKind::Bool) {
        std::vector<IValue> b;
        for (int64_t e : l) b.emplace_back(e != 0);
        return IValue::list(std::move(b));
      }
      return IValue(l);
    }
    case AttributeKind::fs: {
      std::vector<IValue> d;
      for (double e : std::get<std::vector<double>>(a->value)) d.emplace_back(e);
      return IValue::list(std::move(d));
    }
    case AttributeKind::ss: {
      std::vector<IValue> d;
      for (const std::string& e : std::get<std::vector<std::string>>(a->value)) d.emplace_back(e);
      return IValue::list(std::move(d));
    }
    case AttributeKind::t: return IValue(std::get<Tensor>(a->value));
  }
  return std::nullopt;
}

}  // namespace ember::jit
