#include "ember/nn/AnyModule.h"

#include "ember/base/Error.h"

namespace ember::nn {

Tensor AnyModule::forward(const Tensor& input) const {
  ptr();  // checks that there is a module
  return forward_(input);
}

const std::shared_ptr<Module>& AnyModule::ptr() const {
  EMBER_CHECK(module_ != nullptr, "AnyModule: no module is held (it was default-constructed)");
  return module_;
}

void AnyModule::throw_wrong_type(const std::type_info& wanted) const {
  EMBER_FAIL("AnyModule: the module is a {}, not a {}", module_->name(), detail::readable_type_name(wanted));
}

AnyModule AnyModule::clone(const std::optional<Device>& device) const {
  EMBER_CHECK(module_, "AnyModule.clone: the AnyModule is empty");
  return clone_(*module_, device);
}

}  // namespace ember::nn
