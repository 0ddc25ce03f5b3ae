#include "ember/nn/ModuleHolder.h"

#include <cxxabi.h>

#include <cstdlib>

#include "ember/base/Error.h"

namespace ember::nn::detail {

std::string readable_type_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  // Drop the namespaces of the type itself (not those inside template arguments), then an "Impl" suffix.
  const size_t angle = name.find('<');
  const size_t colon = name.rfind("::", angle);
  if (colon != std::string::npos) name = name.substr(colon + 2);
  constexpr std::string_view kImpl = "Impl";
  if (name.size() > kImpl.size() && name.ends_with(kImpl)) name.resize(name.size() - kImpl.size());
  return name;
}

void throw_empty_holder(const std::type_info& contained) {
  EMBER_FAIL("Accessing an empty {0} holder (made with nullptr): assign it a module first, e.g. `x = {0}(...)` or "
             "`x = register_module(\"x\", {0}(...))`",
             readable_type_name(contained));
}

}  // namespace ember::nn::detail
