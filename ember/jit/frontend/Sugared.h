#pragma once
// The sugared values of the TorchScript compiler (Note [sugared values]). Internal to ember/jit/frontend.
//
// Note [sugared values]
// Not everything a name denotes is an IR value: `torch` is a module of ops, `len` a builtin, `x.view` a method
// bound to x, `f` another function of the unit, `range(n)` something only a for loop can iterate. These are
// SugaredValues (Compiler.h): the emitter asks them for attributes and calls, and only a real value becomes
// an IR Value. The module increment adds `self` (an object whose attributes are values, submodules or
// methods) as one more kind, through the Resolver.
#include <string>
#include <vector>

#include "ember/jit/frontend/Emitter.h"

namespace ember::jit::script {

/// An IR value.
class ValueSugar : public SugaredValue {
 public:
  explicit ValueSugar(Value* v) : v_(v) {}
  std::string kind() const override { return "value of type '" + v_->type()->str() + "'"; }
  SugaredPtr attr(const SourceRange& loc, Emitter& e, const std::string& name) override;
  Value* as_value(const SourceRange&, Emitter&) override { return v_; }

 private:
  Value* v_;
};

/// A module of functions and constants: "torch", "torch.nn.functional", "math", "torch.jit", "typing".
class ModuleSugar : public SugaredValue {
 public:
  explicit ModuleSugar(std::string name) : name_(std::move(name)) {}
  std::string kind() const override { return "module '" + name_ + "'"; }
  SugaredPtr attr(const SourceRange& loc, Emitter& e, const std::string& name) override;

 private:
  std::string name_;
};

/// An op of the dispatcher ("aten::relu"), optionally bound to its first argument (a method: `x.relu()`).
/// `functional`: called as torch.nn.functional's Python function of that name, whose keywords differ from the
/// op's (Note [functional calls]).
class OpSugar : public SugaredValue {
 public:
  OpSugar(std::string op, Value* self = nullptr, bool functional = false)
      : op_(std::move(op)), self_(self), functional_(functional) {}
  std::string kind() const override { return "builtin '" + op_ + "'"; }
  SugaredPtr call(const SourceRange& loc, Emitter& e, const Tree& call) override;

 private:
  std::string op_;
  Value* self_;
  bool functional_;
};

/// A builtin function of Python with TorchScript's meaning: len, range, min, max, abs, int, float, bool, str,
/// print, isinstance, annotate, zip, enumerate.
class BuiltinSugar : public SugaredValue {
 public:
  explicit BuiltinSugar(std::string name) : name_(std::move(name)) {}
  std::string kind() const override { return "builtin '" + name_ + "'"; }
  SugaredPtr call(const SourceRange& loc, Emitter& e, const Tree& call) override;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

/// A function of the compilation unit (calls are inlined).
class FunctionSugar : public SugaredValue {
 public:
  explicit FunctionSugar(const GraphFunction* fn) : fn_(fn) {}
  std::string kind() const override { return "function '" + fn_->name() + "'"; }
  SugaredPtr call(const SourceRange& loc, Emitter& e, const Tree& call) override;

 private:
  const GraphFunction* fn_;
};

/// What only a for loop iterates: range(...), zip(...), enumerate(...).
class IterableSugar : public SugaredValue {
 public:
  enum class Kind { Range, Zip, Enumerate };
  IterableSugar(Kind k, std::vector<Value*> args) : k_(k), args_(std::move(args)) {}
  std::string kind() const override {
    return k_ == Kind::Range ? "range" : k_ == Kind::Zip ? "zip" : "enumerate";
  }
  Kind which() const { return k_; }
  const std::vector<Value*>& args() const { return args_; }

 private:
  Kind k_;
  std::vector<Value*> args_;
};

}  // namespace ember::jit::script
