#include "ember/ops/meta.h"

#include "ember/ops/Functions.h"

namespace ember {

namespace {

DType to_float(DType d) { return is_floating_point(d) || is_complex(d) ? d : default_dtype(); }

// Broadcast shape of the tensor arguments (skipping `skip`) and their result_type with the number arguments.
TensorMeta elementwise(const FunctionSchema& s, const Stack& args, int skip_for_dtype) {
  TensorMeta m;
  ResultTypeState rt;
  bool first = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const SchemaArgument& a = s.arguments[i];
    if (a.alias && a.alias->is_write && a.kwarg_only) continue;  // out=
    const IValue& v = args[i];
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      m.sizes = first ? DimVector(t.sizes()) : broadcast_shapes(m.sizes, t.sizes());
      first = false;
      if (static_cast<int>(i) != skip_for_dtype) rt.add(t);
    } else if (v.is_scalar() && a.type.kind != SchemaType::Kind::Float &&
               (a.type.kind == SchemaType::Kind::Scalar ||
                (a.type.kind == SchemaType::Kind::Optional && a.type.elem->kind == SchemaType::Kind::Scalar))) {
      // Scalar bounds and weights (clamp, lerp) promote like numbers; alpha/value never change the dtype.
      if (a.name != "alpha" && a.name != "value") rt.add(v.to_scalar());
    }
  }
  m.dtype = rt.result();
  return m;
}

}  // namespace

std::optional<TensorMeta> infer_meta(const OperatorHandle& op, const Stack& args) {
  const std::string& rule = op.info().shape;
  if (rule.empty()) return std::nullopt;
  const FunctionSchema& s = op.schema();
  EMBER_CHECK(args.size() == s.arguments.size(), "infer_meta: {} expects {} arguments, got {}", s.full_name(),
              s.arguments.size(), args.size());
  // In-place: the result is self.
  if (!s.arguments.empty() && s.arguments[0].alias && s.arguments[0].alias->is_write && args[0].is_tensor()) {
    const Tensor& self = args[0].to_tensor();
    return TensorMeta{DimVector(self.sizes()), self.dtype()};
  }
  std::optional<DType> out_dtype;
  for (size_t i = 0; i < args.size(); ++i)
    if (s.arguments[i].kwarg_only && s.arguments[i].alias && s.arguments[i].alias->is_write && args[i].is_tensor())
      out_dtype = args[i].to_tensor().dtype();

  TensorMeta m;
  if (rule == "view") {
    Stack st(args);
    op.call_boxed(&st);
    const Tensor& r = st.back().to_tensor();
    return TensorMeta{DimVector(r.sizes()), r.dtype()};
  } else if (rule == "factory") {
    std::optional<DType> dtype;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& n = s.arguments[i].name;
      if (n == "size") m.sizes = DimVector(args[i].to_int_list());
      if (n == "self") {
        m.sizes = DimVector(args[i].to_tensor().sizes());
        m.dtype = args[i].to_tensor().dtype();
      }
      if (n == "dtype" && !args[i].is_none()) dtype = args[i].to_dtype();
      if (n == "steps") m.sizes = {args[i].to_int()};
      if (n == "n") m.sizes = {args[i].to_int(), args[i].to_int()};
      if (n == "m") m.sizes[1] = args[i].to_int();
    }
    bool like = !s.arguments.empty() && s.arguments[0].name == "self";
    if (dtype) m.dtype = *dtype;
    else if (!like) {
      m.dtype = default_dtype();
      for (size_t i = 0; i < args.size(); ++i)
        if (s.arguments[i].name == "fill_value" && !args[i].to_scalar().is_floating_point())
          m.dtype = args[i].to_scalar().dtype();  // full() infers bool or int64 from its value
    }
  } else if (rule == "unary" || rule == "unary_float" || rule == "unary_bool" || rule == "square") {
    const Tensor& self = args[0].to_tensor();
    m.sizes = DimVector(self.sizes());
    m.dtype = rule == "unary_float"  ? to_float(self.dtype())
              : rule == "unary_bool" ? kBool
              : rule == "square"     ? (self.dtype() == kBool ? kInt64 : self.dtype())
                                     : self.dtype();
  } else if (rule == "binary" || rule == "binary_float" || rule == "compare") {
    m = elementwise(s, args, -1);
    if (rule == "binary_float") m.dtype = to_float(m.dtype);
    if (rule == "compare") m.dtype = kBool;
  } else if (rule == "where") {
    m = elementwise(s, args, 0);
  } else {
    EMBER_FAIL("infer_meta: unknown shape rule '{}' for {}", rule, s.full_name());
  }
  if (out_dtype) m.dtype = *out_dtype;
  return m;
}

}  // namespace ember
