// ParameterList and ParameterDict (python/ember/nn/modules/container.py).
#include "ember/nn/ParameterContainers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/autograd.h"

namespace ember::nn {

namespace {
// A copy of param with its own storage, for a clone to register (copy_state_for_clone then fills it).
Tensor fresh_copy(const Tensor& param) {
  return param.defined() ? param.detach().clone() : Tensor();
}

// Python's line of a parameter in the container's repr: "(key): Parameter containing: [<type> of size 2x3]",
// where <type> is "ember.float32" (ParameterList) or the legacy type "ember.FloatTensor" (ParameterDict).
std::string param_line(const std::string& key, const Tensor& param, bool legacy_type) {
  if (!param.defined()) return fmt::format("    ({}): None", key);
  std::string type;
  if (legacy_type) {
    switch (param.dtype()) {
      case kFloat32: type = "Float"; break;
      case kFloat64: type = "Double"; break;
      case kFloat16: type = "Half"; break;
      case kBFloat16: type = "BFloat16"; break;
      case kInt64: type = "Long"; break;
      case kInt32: type = "Int"; break;
      case kInt16: type = "Short"; break;
      case kInt8: type = "Char"; break;
      case kUInt8: type = "Byte"; break;
      case kBool: type = "Bool"; break;
      default: type = std::string(dtype_name(param.dtype())); break;
    }
    type = "ember." + type + "Tensor";
  } else {
    type = "ember." + std::string(dtype_name(param.dtype()));
  }
  return fmt::format("    ({}): Parameter containing: [{} of size {}]", key, type, fmt::join(param.sizes(), "x"));
}

// Python's Module.__repr__ of a module whose extra_repr is these lines (each already indented by 4) and that has
// no children: one line goes inside the parentheses after two spaces' indentation was trimmed, several go on
// lines of their own.
void print_lines(std::ostream& stream, const std::string& name, const std::vector<std::string>& lines) {
  stream << name << "(";
  if (lines.size() == 1) {
    stream << lines[0].substr(2);
  } else if (!lines.empty()) {
    stream << "\n" << fmt::format("{}", fmt::join(lines, "\n")) << "\n";
  }
  stream << ")";
}
}  // namespace

void ParameterListImpl::reset() {
  for (size_t i = 0; i < params_.size(); ++i) {
    const bool requires_grad = params_[i].defined() && params_[i].requires_grad();
    params_[i] = register_parameter(std::to_string(i), fresh_copy(params_[i]), requires_grad);
  }
}

void ParameterListImpl::append(const Tensor& param) {
  const bool requires_grad = param.defined() && param.requires_grad();
  params_.push_back(register_parameter(std::to_string(params_.size()), param, requires_grad));
}

const Tensor& ParameterListImpl::at(size_t idx) const {
  EMBER_CHECK_INDEX(idx < params_.size(), "ParameterList: index {} is out of range for a list of {} parameters", idx,
                    params_.size());
  return params_[idx];
}

void ParameterListImpl::pretty_print(std::ostream& stream) const {
  std::vector<std::string> lines;
  for (size_t i = 0; i < params_.size(); ++i) lines.push_back(param_line(std::to_string(i), params_[i], false));
  print_lines(stream, "ParameterList", lines);
}

ParameterDictImpl::ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) { update(params); }

void ParameterDictImpl::reset() {
  for (auto& item : params_) {
    const bool requires_grad = item.value().defined() && item.value().requires_grad();
    item.value() = register_parameter(item.key(), fresh_copy(item.value()), requires_grad);
  }
}

const Tensor& ParameterDictImpl::insert(const std::string& key, const Tensor& param) {
  const bool requires_grad = param.defined() && param.requires_grad();
  const Tensor& stored = register_parameter(key, param, requires_grad);
  if (Tensor* existing = params_.find(key)) return *existing = stored;
  return params_.insert(key, stored);
}

const Tensor& ParameterDictImpl::get(const std::string& key) const {
  const Tensor* found = params_.find(key);
  EMBER_CHECK_INDEX(found != nullptr, "ParameterDict: no parameter named '{}' (keys: [{}])", key,
                    fmt::join(params_.keys(), ", "));
  return *found;
}

void ParameterDictImpl::pretty_print(std::ostream& stream) const {
  std::vector<std::string> lines;
  for (const auto& item : params_) lines.push_back(param_line(item.key(), item.value(), true));
  print_lines(stream, "ParameterDict", lines);
}

}  // namespace ember::nn
