#include "ember/jit/ir/Verifier.h"

#include <unordered_set>
#include <utility>

#include "ember/base/Error.h"
#include "ember/jit/ir/IRPrinter.h"

namespace ember::jit {

namespace {

// Note [linear verification]
// Verifying is linear in the graph's size (nodes + inputs + uses), since loading a saved model verifies it and a
// file's size must bound its loading time: each use is visited once, from its value's defining node, and
// recorded as (user, input) in uses_seen_, so checking a node's inputs against the use lists is a lookup, not a
// scan of every use of the value; messages are formatted only when a check fails.
struct UseKeyHash {
  size_t operator()(const std::pair<const Node*, size_t>& k) const {
    return std::hash<const void*>()(k.first) * 31 + k.second;
  }
};

class Verifier {
 public:
  explicit Verifier(const Graph& g) : g_(g) {}

  void run() { check_block(g_.block(), nullptr); }

 private:
  [[noreturn]] void fail(const Node* n, const std::string& what) const {
    EMBER_FAIL("verify: {}\n  in: {}", what, node_line(n));
  }
  void check(bool ok, const Node* n, const std::string& what) const {
    if (!ok) fail(n, what);
  }
// A check whose message is formatted only when it fails: formatting eagerly costs a node_line per check, which
// made verifying a node with many inputs quadratic (Note [linear verification]).
#define EMBER_VERIFY(ok, n, ...)                    \
  do {                                              \
    if (!(ok)) fail((n), fmt::format(__VA_ARGS__)); \
  } while (0)

  // Uses and definitions of one node's values (Note [use lists]).
  void check_uses(const Node* n) {
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      const Value* v = n->inputs()[i];
      EMBER_VERIFY(g_.all_values().count(const_cast<Value*>(v)) == 1, n, "input {} is a destroyed value", i);
      EMBER_VERIFY(in_scope_.count(v) == 1, n,
                   "input {} (%{}) is used before its definition or outside the block that defines it", i,
                   v->display_name());
      // In scope, so its defining node was checked already and recorded the uses of v (Note [linear
      // verification]).
      EMBER_VERIFY(uses_seen_.count({n, i}) == 1, n, "the use-list of %{} does not record input {}", v->display_name(),
                   i);
    }
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      const Value* v = n->outputs()[i];
      EMBER_VERIFY(v->node() == n && v->offset() == i, n, "output {} (%{}) names another defining node or offset", i,
                   v->display_name());
      EMBER_VERIFY(v->type() != nullptr, n, "output %{} has no type", v->display_name());
      for (const Use& u : v->uses()) {
        EMBER_VERIFY(uses_seen_.insert({u.user, u.offset}).second, n,
                     "the use-list of %{} records input {} of a node twice", v->display_name(), u.offset);
        EMBER_VERIFY(g_.all_nodes().count(u.user) == 1, n, "%{} is used by a destroyed node", v->display_name());
        EMBER_VERIFY(u.offset < u.user->num_inputs() && u.user->inputs()[u.offset] == v, n,
                     "the use-list of %{} names input {} of {}, which is another value", v->display_name(), u.offset,
                     node_line(u.user));
        EMBER_VERIFY(u.user->in_block_list(), n, "%{} is used by a node that is not in any block: {}",
                     v->display_name(), node_line(u.user));
      }
    }
  }

  void check_block(const Block* b, const Node* owner) {
    check(b->owning_node() == owner, owner ? owner : b->return_node(), "a block names another owning node");
    const Node* p = b->param_node();
    check(p->kind() == prim::Param && p->prev() == nullptr && p->owning_block() == b && p->num_inputs() == 0, p,
          "malformed block start (Param node)");
    check_uses(p);
    for (const Value* v : p->outputs()) in_scope_.insert(v);
    std::vector<const Value*> defined(p->outputs().begin(), p->outputs().end());
    const Node* prev = p;
    for (const Node* n = p->next(); n; n = n->next()) {
      check(n->prev() == prev, n, "the block's list is not linked both ways");
      check(n->owning_block() == b, n, "the node's block is not the block whose list holds it");
      check(prev->is_before(n), n, "node positions do not increase along the block");
      check(n->kind() != prim::Param, n, "a Param node inside a block's list");
      check_uses(n);
      if (n->kind() == prim::Return) {
        check(n->next() == nullptr && n == b->return_node() && n->num_outputs() == 0, n,
              "a Return node before the end of its block");
        break;
      }
      check_kind(n);
      for (const Block* sub : n->blocks()) check_block(sub, n);
      for (const Value* v : n->outputs()) {
        in_scope_.insert(v);
        defined.push_back(v);
      }
      prev = n;
    }
    check(b->return_node()->prev() != nullptr, b->return_node(), "the block's list does not reach its Return node");
    for (const Value* v : defined) in_scope_.erase(v);  // not visible after the block
  }

  // ---- per-kind checks

  void check_constant(const Node* n) const {
    check(n->num_inputs() == 0 && n->num_outputs() == 1, n, "prim::Constant takes no inputs and has one output");
    const Type& t = *n->output()->type();
    const Attribute* a = n->find_attribute("value");
    check(n->attributes().size() == (a ? 1u : 0u), n, "prim::Constant has attributes other than 'value'");
    if (!a) {
      check(t.kind() == TypeKind::None, n, "a prim::Constant without value must be of type NoneType, not " + t.str());
      return;
    }
    auto want = [&](AttributeKind k) {
      EMBER_VERIFY(a->kind() == k, n, "a constant of type {} needs a value of kind {}, not {}", t.str(),
                   attribute_kind_name(k), attribute_kind_name(a->kind()));
    };
    const auto* lt = t.cast<ListType>();
    switch (t.kind()) {
      case TypeKind::Int:
        want(AttributeKind::i);
        break;
      case TypeKind::Bool: {
        want(AttributeKind::i);
        int64_t v = std::get<int64_t>(a->value);
        EMBER_VERIFY(v == 0 || v == 1, n, "a bool constant must be 0 or 1, not {}", v);
        break;
      }
      case TypeKind::Float:
        want(AttributeKind::f);
        break;
      case TypeKind::Str:
        want(AttributeKind::s);
        break;
      case TypeKind::Device: {
        want(AttributeKind::s);
        try {
          Device d(std::get<std::string>(a->value));
          (void)d;
        } catch (const Error& e) {
          fail(n, std::string("a Device constant names no device: ") + e.what());
        }
        break;
      }
      case TypeKind::Tensor:
        want(AttributeKind::t);
        check(std::get<Tensor>(a->value).defined(), n,
              "the tensor constant has no data (text parsed without its tensor table)");
        break;
      case TypeKind::List:
        switch (lt->elem()->kind()) {
          case TypeKind::Int:
            want(AttributeKind::is);
            break;
          case TypeKind::Bool:
            want(AttributeKind::is);
            for (int64_t v : std::get<std::vector<int64_t>>(a->value))
              check(v == 0 || v == 1, n, "a bool[] constant holds values other than 0 and 1");
            break;
          case TypeKind::Float:
            want(AttributeKind::fs);
            break;
          case TypeKind::Str:
            want(AttributeKind::ss);
            break;
          default:
            fail(n, "no constant of type " + t.str());
        }
        break;
      default:
        fail(n, "no constant of type " + t.str());
    }
  }

  void check_op(const Node* n) const {
    auto ops = Dispatcher::singleton().overloads(n->kind().qual_string());
    EMBER_VERIFY(!ops.empty(), n,
                 "unknown operator {}: no op of that name is registered (a library defining it may need "
                 "loading)",
                 n->kind().qual_string());
    const FunctionSchema* s = n->maybe_schema();
    if (!s) {
      std::string why;
      for (const OperatorHandle& op : ops) {
        const FunctionSchema& c = op.schema();
        why += "\n    " + c.str();
        if (c.arguments.size() != n->num_inputs())
          why += fmt::format("  (takes {} argument(s), the node passes {})", c.arguments.size(), n->num_inputs());
      }
      fail(n, fmt::format("no overload of {} accepts these {} input(s); candidates:{}", n->kind().qual_string(),
                          n->num_inputs(), why));
    }
    EMBER_VERIFY(n->num_outputs() == s->returns.size(), n, "{} has {} result(s) but the node has {} output(s)",
                 s->str(), s->returns.size(), n->num_outputs());
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      TypePtr want = type_from_schema(s->returns[i].type);
      EMBER_VERIFY(n->output(i)->type()->is_subtype_of(*want), n,
                   "output {} (%{}) is of type {} but {} returns {} there", i, n->output(i)->display_name(),
                   n->output(i)->type()->str(), s->full_name(), want->str());
    }
    check(n->blocks().empty(), n, "an op node has blocks");
  }

  static bool subtype(const Value* v, const TypePtr& t) { return v->type()->is_subtype_of(*t); }

  void check_kind(const Node* n) const {
    const Symbol k = n->kind();
    if (n->is_op()) return check_op(n);
    if (k == prim::Constant) return check_constant(n);
    if (k == prim::If) {
      check(n->num_inputs() == 1 && n->input(0)->type()->kind() == TypeKind::Bool, n, "prim::If takes one bool input");
      EMBER_VERIFY(n->blocks().size() == 2, n, "prim::If has 2 blocks, not {}", n->blocks().size());
      for (size_t bi = 0; bi < 2; ++bi) {
        const Block* b = n->blocks()[bi];
        EMBER_VERIFY(b->inputs().empty(), n, "block{} of prim::If takes inputs", bi);
        EMBER_VERIFY(b->outputs().size() == n->num_outputs(), n,
                     "block{} of prim::If returns {} value(s) for {} output(s)", bi, b->outputs().size(),
                     n->num_outputs());
        for (size_t i = 0; i < n->num_outputs(); ++i)
          EMBER_VERIFY(subtype(b->outputs()[i], n->output(i)->type()), n,
                       "block{} returns %{} of type {} for output {} of type {}", bi, b->outputs()[i]->display_name(),
                       b->outputs()[i]->type()->str(), i, n->output(i)->type()->str());
      }
      return;
    }
    if (k == prim::Loop) {
      check(n->num_inputs() >= 2 && n->input(0)->type()->kind() == TypeKind::Int &&
                n->input(1)->type()->kind() == TypeKind::Bool,
            n, "prim::Loop takes (max_trip_count : int, condition : bool, carried...)");
      size_t carried = n->num_inputs() - 2;
      EMBER_VERIFY(n->num_outputs() == carried, n, "prim::Loop carries {} value(s) but has {} output(s)", carried,
                   n->num_outputs());
      EMBER_VERIFY(n->blocks().size() == 1, n, "prim::Loop has 1 block, not {}", n->blocks().size());
      const Block* b = n->blocks()[0];
      EMBER_VERIFY(b->inputs().size() == carried + 1 && b->inputs()[0]->type()->kind() == TypeKind::Int, n,
                   "the body of prim::Loop takes (iteration : int, {} carried value(s)), not {} input(s)", carried,
                   b->inputs().size());
      EMBER_VERIFY(b->outputs().size() == carried + 1 && b->outputs()[0]->type()->kind() == TypeKind::Bool, n,
                   "the body of prim::Loop returns (condition : bool, {} carried value(s)), not {} value(s)", carried,
                   b->outputs().size());
      for (size_t i = 0; i < carried; ++i) {
        EMBER_VERIFY(
            subtype(n->input(i + 2), b->inputs()[i + 1]->type()) && subtype(b->outputs()[i + 1], n->output(i)->type()),
            n, "carried value {} changes type in prim::Loop", i);
      }
      return;
    }
    check(n->blocks().empty(), n, std::string(k.qual_string()) + " has blocks");
    if (k == prim::ListConstruct) {
      check(n->num_outputs() == 1, n, "prim::ListConstruct has one output");
      const auto* lt = n->output()->type()->cast<ListType>();
      check(lt != nullptr, n, "prim::ListConstruct produces a list, not " + n->output()->type()->str());
      for (const Value* v : n->inputs())
        EMBER_VERIFY(subtype(v, lt->elem()), n, "%{} of type {} in a list of {}", v->display_name(), v->type()->str(),
                     lt->elem()->str());
    } else if (k == prim::ListUnpack) {
      check(n->num_inputs() == 1 && n->input(0)->type()->kind() == TypeKind::List, n,
            "prim::ListUnpack takes one list");
      const TypePtr& e = n->input(0)->type()->cast<ListType>()->elem();
      for (const Value* v : n->outputs())
        check(e->is_subtype_of(*v->type()), n, "prim::ListUnpack output of another type than the list's elements");
    } else if (k == prim::TupleConstruct) {
      check(n->num_outputs() == 1, n, "prim::TupleConstruct has one output");
      const auto* tt = n->output()->type()->cast<TupleType>();
      EMBER_VERIFY(tt && tt->elements().size() == n->num_inputs(), n, "prim::TupleConstruct of {} input(s) produces {}",
                   n->num_inputs(), n->output()->type()->str());
      for (size_t i = 0; i < n->num_inputs(); ++i)
        EMBER_VERIFY(subtype(n->input(i), tt->elements()[i]), n, "tuple element {} has another type", i);
    } else if (k == prim::TupleUnpack) {
      check(n->num_inputs() == 1, n, "prim::TupleUnpack takes one tuple");
      const auto* tt = n->input(0)->type()->cast<TupleType>();
      EMBER_VERIFY(tt && tt->elements().size() == n->num_outputs(), n, "prim::TupleUnpack of a {} into {} output(s)",
                   n->input(0)->type()->str(), n->num_outputs());
      for (size_t i = 0; i < n->num_outputs(); ++i)
        EMBER_VERIFY(tt->elements()[i]->is_subtype_of(*n->output(i)->type()), n, "tuple element {} has another type",
                     i);
    } else if (k == prim::DictConstruct) {
      check(n->num_outputs() == 1 && n->num_inputs() % 2 == 0, n,
            "prim::DictConstruct takes key/value pairs and has one output");
      const auto* dt = n->output()->type()->cast<DictType>();
      check(dt != nullptr, n, "prim::DictConstruct produces a dict, not " + n->output()->type()->str());
      for (size_t i = 0; i < n->num_inputs(); i += 2)
        EMBER_VERIFY(subtype(n->input(i), dt->key()) && subtype(n->input(i + 1), dt->value()), n,
                     "dict entry {} has another type than {}", i / 2, dt->str());
    } else if (k == prim::GetAttr) {
      check(n->num_inputs() == 1 && n->num_outputs() == 1, n, "prim::GetAttr takes one object and has one output");
      const Attribute* a = n->find_attribute("name");
      check(a && a->kind() == AttributeKind::s, n, "prim::GetAttr needs a string attribute 'name'");
      const auto* ct = n->input(0)->type()->cast<ClassType>();
      check(ct != nullptr, n, "prim::GetAttr of a " + n->input(0)->type()->str() + ", not of an object");
      if (TypePtr t = ct->find_attribute(std::get<std::string>(a->value)))
        EMBER_VERIFY(t->is_subtype_of(*n->output()->type()), n, "attribute '{}' of {} is a {}, not a {}",
                     std::get<std::string>(a->value), ct->name(), t->str(), n->output()->type()->str());
    }
  }

  const Graph& g_;
  std::unordered_set<const Value*> in_scope_;
  std::unordered_set<std::pair<const Node*, size_t>, UseKeyHash> uses_seen_;  // Note [linear verification]
};

}  // namespace

void verify(const Graph& g) { Verifier(g).run(); }

}  // namespace ember::jit
