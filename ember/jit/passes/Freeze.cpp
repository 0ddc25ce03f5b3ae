// Freezing and the inference pipeline (Passes.h).
#include <set>

#include "ember/base/Error.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/jit/passes/Analysis.h"
#include "ember/jit/passes/GraphEdit.h"
#include "ember/jit/passes/Passes.h"
#include "ember/ops/Functions.h"

namespace ember::jit {
namespace {

// The first object of the hierarchy under obj (obj included) in training mode, as a dotted path, or nullopt.
std::optional<std::string> training_path(const Object& obj, const std::string& path) {
  if (obj.training()) return path;
  for (const Slot& s : obj.slots())
    if (s.kind == SlotKind::Module)
      if (auto p = training_path(*s.module, path + "." + s.name)) return p;
  return std::nullopt;
}

// Note [freezing mutated attributes]
// An attribute whose tensor the graph may write in place (an in-place op on a buffer, Note [alias classes])
// cannot become a constant: the constant would be shared by every run and the writes would accumulate in
// it. Such reads stay prim::GetAttr and the frozen module keeps the attribute, as torch.jit.freeze keeps
// mutated attributes. Submodule objects that such reads still go through are shared with the original
// module, not cloned (runtime modules have no deep copy).

// Note [frozen constants are copies]
// A frozen module must not change when the original does: the original may go on training (its parameters
// updated in place by an optimizer) while the frozen one serves. So the constants are copies of the parameter
// and buffer tensors, as torch.jit.freeze works on a clone of the module, and the attributes the frozen module
// keeps (Note [freezing mutated attributes]) are copies too; submodule objects that kept reads go through are
// the one thing shared.

// Note [preserved attributes]
// torch.jit.freeze's preserved_attrs names methods and attributes alike; an attribute named there (a dotted
// path reaches into submodules: "fc.weight") is kept as an attribute: its reads stay prim::GetAttr, and the
// frozen module holds the original's tensor itself, not a copy (torch's frozen module shares it too: changing
// it in place changes both modules' results). A submodule on the path is shared with the original, as for
// mutated attributes.

// (object, attribute name) of each preserved attribute path. Errors: a path naming no attribute.
std::set<std::pair<const Object*, std::string>> preserved_attributes(const Module& module,
                                                                     const std::vector<std::string>& paths) {
  std::set<std::pair<const Object*, std::string>> out;
  for (const std::string& path : paths) {
    const Object* obj = module.object().get();
    std::string rest = path;
    for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
      int64_t slot = obj->find_slot(rest.substr(0, dot));
      EMBER_CHECK(slot >= 0 && obj->slots()[static_cast<size_t>(slot)].kind == SlotKind::Module,
                  "jit freeze: preserved attribute '{}': {} has no submodule '{}'", path, obj->type()->name(),
                  rest.substr(0, dot));
      obj = obj->slots()[static_cast<size_t>(slot)].module.get();
    }
    int64_t slot = obj->find_slot(rest);
    EMBER_CHECK(slot >= 0 && obj->slots()[static_cast<size_t>(slot)].kind != SlotKind::Module,
                "jit freeze: '{}' names neither a method nor an attribute of {} (preserved_attrs keeps methods, "
                "parameters, buffers and plain attributes)", path, module.type()->name());
    out.emplace(obj, rest);
  }
  return out;
}

// Replaces attribute reads by constants, except the preserved ones (Note [preserved attributes]) and those
// the graph writes (Note [freezing mutated attributes]).
void fold_attribute_reads(Graph& g, const Object* self,
                          const std::set<std::pair<const Object*, std::string>>& preserved) {
  passes::AliasDb db(g);
  auto objects = passes::module_objects(g, self);
  std::vector<Node*> reads;
  passes::for_each_node(g.block(), [&](Node* n) {
    if (n->kind() == prim::GetAttr && !objects.count(n->output())) reads.push_back(n);
  });
  for (Node* n : reads) {
    auto it = objects.find(n->input(0));
    if (it == objects.end() || db.may_be_written(n->output())) continue;
    const Object* obj = it->second;
    const std::string& name = n->s("name");
    if (preserved.count({obj, name})) continue;
    int64_t slot = obj->find_slot(name);
    IValue value;
    if (slot >= 0) value = obj->slot_value(static_cast<uint32_t>(slot));
    else if (name == "training") value = IValue(obj->training());
    else continue;  // compile() reports the missing attribute
    // A copy (Note [frozen constants are copies]).
    if (value.is_tensor()) value = IValue(clone(detach(value.to_tensor())));
    Value* c;
    try {
      InsertPointGuard guard(g, n);
      c = g.insert_constant(value);
    } catch (const Error&) {
      continue;  // a value no constant can hold (a tuple, a tensor list): it stays an attribute
    }
    std::string vname = n->output()->has_debug_name() ? n->output()->debug_name() : "";
    n->output()->replace_all_uses_with(c);
    n->destroy();
    passes::name_if_free(c, vname);
  }
}

// The names of %self's attributes the graph still reads.
void collect_self_reads(const Graph& g, std::set<std::string>& names) {
  const Value* self = g.inputs()[0];
  for (const Use& u : self->uses())
    if (u.user->kind() == prim::GetAttr) names.insert(u.user->s("name"));
}

template <class Pass>
void run_pass(std::shared_ptr<Graph>& g, Pass pass, const char* name, bool verify) {
  pass(g);
  if (verify) passes::verify_after(*g, name);
}

}  // namespace

void optimize_frozen_graph(std::shared_ptr<Graph>& graph, const PipelineOptions& options) {
  run_pass(graph, fold_batch_norm, "fold_batch_norm", options.verify);
  run_pass(graph, propagate_constants, "propagate_constants", options.verify);
  run_pass(graph, peephole_optimize, "peephole_optimize", options.verify);
  run_pass(graph, eliminate_common_subexpression, "eliminate_common_subexpression", options.verify);
  run_pass(graph, eliminate_dead_code, "eliminate_dead_code", options.verify);
}

Module freeze(const Module& module, const FreezeOptions& options) {
  if (auto p = training_path(*module.object(), "module"))
    EMBER_FAIL("jit freeze: freezing is only implemented for modules in eval mode, and {} of {} is in training "
               "mode; call eval() on the module first", *p, module.type()->name());
  for (const std::string& name : options.preserved_methods)
    EMBER_CHECK(module.has_method(name), "jit freeze: {} has no method '{}' to preserve", module.type()->name(),
                name);
  const Object* self = module.object().get();
  const auto preserved = preserved_attributes(module, options.preserved_attrs);
  std::vector<std::pair<std::string, std::shared_ptr<Graph>>> graphs;
  std::set<std::string> still_read;  // %self's attributes the frozen module keeps
  for (const std::string& path : options.preserved_attrs) still_read.insert(path.substr(0, path.find('.')));
  for (const std::string& name : module.method_names()) {
    if (std::find(options.preserved_methods.begin(), options.preserved_methods.end(), name) ==
        options.preserved_methods.end())
      continue;
    std::shared_ptr<Graph> g = module.method(name).graph->copy();
    inline_method_calls(g, module);
    passes::verify_after(*g, "inline_method_calls");
    fold_attribute_reads(*g, self, preserved);
    passes::verify_after(*g, "freeze");
    run_pass(g, propagate_constants, "propagate_constants", true);
    run_pass(g, peephole_optimize, "peephole_optimize", true);
    run_pass(g, eliminate_dead_code, "eliminate_dead_code", true);
    if (options.optimize) optimize_frozen_graph(g);
    collect_self_reads(*g, still_read);
    graphs.emplace_back(name, std::move(g));
  }

  Module frozen(module.type()->name());
  for (const Slot& s : self->slots()) {
    if (!still_read.count(s.name)) continue;
    // Kept attributes are copies (Note [frozen constants are copies]), preserved ones the original's tensors.
    auto copy = [&](const IValue& v) {
      return preserved.count({self, s.name}) ? v.to_tensor() : clone(v.to_tensor());
    };
    switch (s.kind) {
      case SlotKind::Parameter: frozen.register_parameter(s.name, copy(s.value)); break;
      case SlotKind::Buffer: frozen.register_buffer(s.name, copy(s.value)); break;
      case SlotKind::Module: frozen.register_module(s.name, Module(s.module)); break;
      case SlotKind::Attribute:
        frozen.register_attribute(s.name, s.value, module.type()->find_attribute(s.name));
        break;
    }
  }
  frozen.eval();
  for (auto& [name, g] : graphs) {
    g->inputs()[0]->set_type(frozen.type());
    frozen.define_method(name, g);
  }
  return frozen;
}

Module optimize_for_inference(const Module& module, const PipelineOptions& options) {
  FreezeOptions fo;
  fo.optimize = false;
  Module frozen = freeze(module, fo);
  for (const std::string& name : frozen.method_names()) {
    std::shared_ptr<Graph> g = frozen.method(name).graph->copy();
    optimize_frozen_graph(g, options);
    run_pass(g, fuse_elementwise, "fuse_elementwise", options.verify);
    frozen.define_method(name, g);
  }
  return frozen;
}

}  // namespace ember::jit
