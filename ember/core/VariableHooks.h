#pragma once
// Note [variable hooks]
// Tensor's autograd methods (requires_grad_, grad, backward, ...) are declared in the core, which sits below
// autograd and may not call it (DESIGN.md layers). As PyTorch's VariableHooksInterface does, the core declares
// this interface and forwards the methods to whatever implementation is registered; the autograd layer
// registers its implementation while libember.so is loaded (a static object in
// ember/autograd/VariableHooks.cpp), so every program that can make a Tensor has them. A layer built without
// autograd would get a clear RuntimeError instead of a crash (variable_hooks()).
#include <memory>
#include <optional>

#include "ember/core/Tensor.h"

namespace ember {

/// What the core needs from autograd; one function per Tensor method (see Tensor.h for what each does).
struct VariableHooksInterface {
  virtual ~VariableHooksInterface() = default;
  virtual void set_requires_grad(const Tensor& self, bool requires_grad) const = 0;
  virtual const Tensor& grad(const Tensor& self) const = 0;
  virtual Tensor& mutable_grad(const Tensor& self) const = 0;
  virtual void backward(const Tensor& self, const Tensor& gradient, std::optional<bool> retain_graph,
                        bool create_graph, OptionalArrayRef<Tensor> inputs) const = 0;
  virtual bool is_leaf(const Tensor& self) const = 0;
  virtual std::shared_ptr<autograd::Node> grad_fn(const Tensor& self) const = 0;
  virtual void retain_grad(const Tensor& self) const = 0;
  virtual bool retains_grad(const Tensor& self) const = 0;
  virtual void detach_(const Tensor& self) const = 0;
};

/// Registers the implementation (the autograd layer does, once, at load time). hooks must outlive every use.
void set_variable_hooks(const VariableHooksInterface* hooks);
/// The registered implementation. Errors (RuntimeError): none registered yet.
const VariableHooksInterface& variable_hooks();

}  // namespace ember
