#pragma once
// The JIT's SSA graph: a Graph owns Blocks, Nodes and Values. A Node has a kind (Note [node kinds] in
// Symbol.h), input Values, output Values it defines, named attributes and, for control flow, nested Blocks.
// Every Value is defined exactly once, by a node's output or a block's input, and knows its uses.
//
// Note [block params and returns]
// A block's inputs are the outputs of its prim::Param node and its outputs are the inputs of its prim::Return
// node, as in TorchScript. So every Value has a defining node, and "uses" of a block's outputs are ordinary
// uses (by the Return node), which keeps use-lists uniform. The Param and Return nodes are the two ends of the
// block's node list; Block::nodes() iterates strictly between them.
//
// Note [use lists]
// Each Value lists its uses as (user node, input index). Every mutation below keeps both directions in sync:
// adding, inserting, replacing or removing an input updates the used value's list (and the indices of the
// node's later inputs); replace_all_uses_with moves the uses; destroying a node first removes its inputs and
// refuses when one of its outputs is still used. The verifier (Verifier.h) checks the invariant.
//
// Note [node order]
// Nodes of a block carry integer positions that increase along the list, with gaps, so is_before() on two
// nodes of one block is a comparison; an insertion without a free position renumbers the block.
//
// Ownership: the Graph owns everything (stable pointers; nothing is freed before Node::destroy or the Graph's
// destruction). A Graph is neither copyable nor movable (pointers identify it); Graph::copy() clones one.
// Not thread-safe: one thread mutates a graph at a time.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/IValue.h"
#include "ember/jit/ir/Attributes.h"
#include "ember/jit/ir/Symbol.h"
#include "ember/jit/ir/Type.h"

namespace ember::jit {

class Graph;
class Block;
class Node;
class Value;
class IRParser;

/// One use of a value: input `offset` of node `user`.
struct Use {
  Node* user;
  size_t offset;
  bool operator==(const Use& o) const { return user == o.user && offset == o.offset; }
};

/// An SSA value: defined by one node (a Param node for block inputs), typed, with a list of uses.
class Value {
 public:
  /// The defining node (for a block input: the block's Param node).
  Node* node() const { return node_; }
  /// The index of this value among node()->outputs().
  size_t offset() const { return offset_; }
  Graph* owning_graph() const;
  const TypePtr& type() const { return type_; }
  /// Sets the type. Errors: null type. Note: cached schemas of users are not re-resolved
  /// (Node::invalidate_schema()).
  Value* set_type(TypePtr type);
  /// The uses, in the order they were added.
  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  /// A number unique within the graph (the printed name of a value without debug name: %12).
  size_t unique() const { return unique_; }
  bool has_debug_name() const { return !name_.empty(); }
  const std::string& debug_name() const { return name_; }
  /// The name printed after '%': the debug name, or else unique().
  std::string display_name() const;
  /// Names the value (Note [value names]); "" clears the name. Errors: a name with characters other than
  /// letters, digits, '_' and '.', or one made of digits only (those are reserved for unique()).
  Value* set_debug_name(std::string_view name);
  /// Makes every user of this value use v instead. Errors: v is null, this value, or of another graph.
  void replace_all_uses_with(Value* v);
  /// The same for the uses by nodes after `after` (Node::is_after; uses in nested blocks of later nodes
  /// count, as do uses by later nodes of enclosing blocks).
  void replace_all_uses_after_node_with(const Node* after, Value* v);

 private:
  friend class Node;
  friend class Block;
  friend class Graph;
  friend class IRParser;
  Value(Node* node, size_t offset, size_t unique, TypePtr type)
      : node_(node), offset_(offset), unique_(unique), type_(std::move(type)) {}
  void remove_use(Node* user, size_t offset);

  Node* node_;
  size_t offset_;
  size_t unique_;
  TypePtr type_;
  std::vector<Use> uses_;
  std::string name_;
};

/// An iterable range of the nodes strictly between a block's Param and Return nodes. The iterator reads the
/// next node when incremented, so the node it points at may be destroyed after stepping past it.
class NodeRange {
 public:
  class iterator {
   public:
    using value_type = Node*;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(Node* n, bool reverse) : n_(n), reverse_(reverse) {}
    Node* operator*() const { return n_; }
    iterator& operator++();
    iterator operator++(int) {
      iterator r = *this;
      ++*this;
      return r;
    }
    bool operator==(const iterator& o) const { return n_ == o.n_; }
    bool operator!=(const iterator& o) const { return n_ != o.n_; }

   private:
    Node* n_ = nullptr;
    bool reverse_ = false;
  };
  NodeRange(Node* begin, Node* end, bool reverse) : begin_(begin, reverse), end_(end, reverse) {}
  iterator begin() const { return begin_; }
  iterator end() const { return end_; }
  bool empty() const { return begin_ == end_; }

 private:
  iterator begin_, end_;
};

/// A node: a kind, inputs, outputs, attributes and nested blocks (prim::If has two, prim::Loop one).
class Node {
 public:
  Symbol kind() const { return kind_; }
  Graph* owning_graph() const { return graph_; }
  /// The block whose list holds this node; null while the node is not inserted.
  Block* owning_block() const { return block_; }
  bool in_block_list() const { return block_ != nullptr; }

  std::span<Value* const> inputs() const { return inputs_; }
  std::span<Value* const> outputs() const { return outputs_; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  /// Input / output i. Errors: i out of range (IndexError naming the node).
  Value* input(size_t i) const;
  Value* output(size_t i) const;
  /// The single output. Errors: the node does not have exactly one output.
  Value* output() const;

  // ---- position in a block (Note [node order])
  /// The next / previous node in the block's list (the Return / Param node at the ends); null when not inserted.
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  /// Inserts this (not yet inserted) node just before / after n. Errors: this node is already in a list;
  /// n is not inserted; inserting before a Param node or after a Return node; n inside this node's own
  /// blocks; another graph.
  Node* insert_before(Node* n);
  Node* insert_after(Node* n);
  /// Moves this inserted node before / after n (possibly into another block). Errors: as insert_*, and n
  /// nested inside this node's own blocks.
  void move_before(Node* n);
  void move_after(Node* n);
  /// Unlinks this node from its block without destroying it (its inputs and uses stay).
  void remove_from_list();
  /// Order of two inserted nodes of the same graph. For nodes of different blocks, compares the ancestors of
  /// both in their nearest common block; a node and a node nested in its own blocks are unordered (false
  /// both ways). Errors: either node not inserted.
  bool is_before(const Node* n) const;
  bool is_after(const Node* n) const { return n->is_before(this); }

  // ---- inputs (Note [use lists])
  /// Appends an input and records the use. Errors: null value or one of another graph.
  Value* add_input(Value* v);
  /// Inserts an input at index i (0 <= i <= num_inputs()).
  Value* insert_input(size_t i, Value* v);
  /// Replaces input i with v; returns the old input.
  Value* replace_input(size_t i, Value* v);
  /// Replaces every occurrence of `from` among the inputs by `to`.
  void replace_input_with(Value* from, Value* to);
  /// Removes input i (later inputs shift down by one).
  void remove_input(size_t i);
  void remove_all_inputs();

  // ---- outputs
  /// Appends / inserts an output of type Tensor (set_type() to change it).
  Value* add_output();
  Value* insert_output(size_t i);
  /// Removes output i. Errors: the output is still used (RuntimeError naming the value and a user).
  void erase_output(size_t i);
  /// Output i of this node replaces output i of n everywhere. Errors: different output counts.
  void replace_all_uses_with(Node* n);

  // ---- nested blocks
  const std::vector<Block*>& blocks() const { return blocks_; }
  /// Appends a new, empty block owned by this node.
  Block* add_block();
  /// Destroys block i and everything in it. Errors: a value defined in it is used outside it.
  void erase_block(size_t i);

  /// Destroys this node (unlinking it, removing its inputs' uses, destroying its blocks). Errors: an output
  /// is still used (RuntimeError quoting this node's line and the user's), or this is a Param/Return node
  /// (those belong to their block).
  void destroy();

  // ---- attributes (Note [attribute kinds])
  const std::vector<Attribute>& attributes() const { return attrs_; }
  bool has_attribute(std::string_view name) const { return find_attribute(name) != nullptr; }
  /// The attribute named `name`, or nullptr.
  const Attribute* find_attribute(std::string_view name) const;
  /// Sets (adds or replaces) an attribute; returns this node.
  Node* set_attribute(std::string name, Attribute::Value value);
  void remove_attribute(std::string_view name);
  // Typed getters. Errors: no such attribute, or one of another kind (RuntimeError naming both).
  int64_t i(std::string_view name) const;
  double f(std::string_view name) const;
  const std::string& s(std::string_view name) const;
  const std::vector<int64_t>& is(std::string_view name) const;
  const std::vector<double>& fs(std::string_view name) const;
  const std::vector<std::string>& ss(std::string_view name) const;
  const Tensor& t(std::string_view name) const;
  // Typed setters (chainable).
  Node* i_(std::string name, int64_t v) { return set_attribute(std::move(name), v); }
  Node* f_(std::string name, double v) { return set_attribute(std::move(name), v); }
  Node* s_(std::string name, std::string v) { return set_attribute(std::move(name), std::move(v)); }
  Node* is_(std::string name, std::vector<int64_t> v) { return set_attribute(std::move(name), std::move(v)); }
  Node* fs_(std::string name, std::vector<double> v) { return set_attribute(std::move(name), std::move(v)); }
  Node* ss_(std::string name, std::vector<std::string> v) { return set_attribute(std::move(name), std::move(v)); }
  Node* t_(std::string name, Tensor v) { return set_attribute(std::move(name), std::move(v)); }

  // ---- operator schema (Note [schema matching])
  /// Whether the kind names an operator of the dispatcher's table: any kind but the IR's own primitives
  /// (EMBER_JIT_FORALL_PRIMS in Symbol.h), so also the prim:: ops TorchScript's builtins register (prim::min).
  bool is_op() const {
    return kind_.valid() && kind_.id() >= static_cast<uint32_t>(detail::BuiltinSymbol::NumBuiltins);
  }
  /// The matched schema of an op node, or nullptr (a primitive, an unknown op, no overload fits). Cached.
  const FunctionSchema* maybe_schema() const;
  /// The same, raising when there is none: RuntimeError naming the op and, for an unknown op, that a library
  /// may need loading; for inputs no overload accepts, the input types and the candidate schemas.
  const FunctionSchema& schema() const;
  /// The operator's handle (for calling it boxed). Errors: as schema().
  OperatorHandle op() const;
  /// Drops the cached schema (after retyping inputs so that another overload may fit).
  void invalidate_schema() const { schema_state_ = SchemaState::Unresolved; }

  /// The node's line in graph text, without indentation or nested blocks:
  /// "%3 : Tensor = aten::add(%1, %2, %alpha)".
  std::string str() const;

 private:
  friend class Graph;
  friend class Block;
  friend class Value;
  friend class IRParser;
  Node(Graph* g, Symbol kind) : kind_(kind), graph_(g) {}
  void link_between(Node* prev, Node* next, Block* b);
  void check_same_graph(const Value* v, const char* what) const;
  void inputs_changed() { schema_state_ = SchemaState::Unresolved; }
  void resolve_schema() const;

  Symbol kind_;
  Graph* graph_;
  Block* block_ = nullptr;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  int64_t position_ = 0;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Block*> blocks_;
  std::vector<Attribute> attrs_;
  enum class SchemaState : uint8_t { Unresolved, Found, Missing };
  mutable SchemaState schema_state_ = SchemaState::Unresolved;
  mutable OperatorHandle op_;
};

/// A list of nodes with inputs (its Param node's outputs) and outputs (its Return node's inputs).
class Block {
 public:
  std::span<Value* const> inputs() const;
  std::span<Value* const> outputs() const;
  /// Appends / inserts a block input, optionally named and typed (default Tensor).
  Value* add_input(std::string_view name = "", TypePtr type = nullptr);
  Value* insert_input(size_t i, std::string_view name = "", TypePtr type = nullptr);
  /// Removes input i. Errors: it is still used.
  void erase_input(size_t i);
  /// Appends v to the block's outputs; returns its index.
  size_t register_output(Value* v);
  void insert_output(size_t i, Value* v);
  void erase_output(size_t i);

  Node* param_node() const { return param_; }
  Node* return_node() const { return return_; }
  /// The node whose block this is (null for a graph's top block).
  Node* owning_node() const { return owning_node_; }
  Graph* owning_graph() const { return graph_; }
  /// The nodes between Param and Return, in order / in reverse.
  NodeRange nodes() const;
  NodeRange reverse_nodes() const;
  /// Inserts n at the end / front of the block.
  Node* append_node(Node* n) { return n->insert_before(return_); }
  Node* prepend_node(Node* n) { return n->insert_after(param_); }

 private:
  friend class Graph;
  friend class Node;
  Block(Graph* g, Node* owning_node);
  void renumber();
  // Errors (before anything changes) when a value defined in this block is used outside it.
  void check_no_outside_uses() const;

  Graph* graph_;
  Node* owning_node_;
  Node* param_;
  Node* return_;
};

/// Note [value names]
/// Values may carry debug names (Python variable names, "x", "self.conv.weight"); names are unique within a
/// graph. As TorchScript does, naming a value with a taken name gives the name to the new value and renames
/// the previous owner with a ".N" suffix: "x" -> "x.1", "x.2", ... (a name already ending in ".N" continues
/// from N). Values without a name print as their unique() number.

/// The graph: a top block (inputs, nodes, outputs) plus everything nested in it.
class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Block* block() const { return block_; }
  std::span<Value* const> inputs() const { return block_->inputs(); }
  std::span<Value* const> outputs() const { return block_->outputs(); }
  /// Adds a graph input, optionally named and typed (default Tensor).
  Value* add_input(std::string_view name = "", TypePtr type = nullptr) { return block_->add_input(name, type); }
  Value* insert_input(size_t i, std::string_view name = "", TypePtr type = nullptr) {
    return block_->insert_input(i, name, type);
  }
  void erase_input(size_t i) { block_->erase_input(i); }
  size_t register_output(Value* v) { return block_->register_output(v); }
  void erase_output(size_t i) { block_->erase_output(i); }
  /// The nodes of the top block.
  NodeRange nodes() const { return block_->nodes(); }
  Node* param_node() const { return block_->param_node(); }
  Node* return_node() const { return block_->return_node(); }

  /// A new node, not yet inserted, with the given inputs and `num_outputs` outputs of type Tensor.
  Node* create(Symbol kind, std::span<Value* const> inputs = {}, size_t num_outputs = 1);
  Node* create(Symbol kind, std::initializer_list<Value*> inputs, size_t num_outputs = 1) {
    return create(kind, std::span<Value* const>(inputs.begin(), inputs.size()), num_outputs);
  }

  // ---- insertion point: where insert_node() and the insert_* helpers put nodes (default: end of the top block)
  /// New nodes go just before n.
  void set_insert_point(Node* n);
  /// New nodes go at the end of b.
  void set_insert_point(Block* b) { set_insert_point(b->return_node()); }
  Node* insert_point() const { return insert_before_; }
  /// Inserts n at the insertion point; returns n.
  Node* insert_node(Node* n) { return n->insert_before(insert_before_); }

  // ---- builders: create and insert at the insertion point
  /// An op node with one output per schema return, typed from the schema (Tensor, int, ... ; Tensor[] ->
  /// Tensor[]). Errors: unknown op name "ns::op[.overload]"; the inputs fit no overload; with an overload
  /// name, the inputs do not fit that overload.
  Node* insert_op(std::string_view qualified_name, std::span<Value* const> inputs);
  Node* insert_op(std::string_view qualified_name, std::initializer_list<Value*> inputs) {
    return insert_op(qualified_name, std::span<Value* const>(inputs.begin(), inputs.size()));
  }
  /// The same for an operator already found (the tracer's boxed fallback has its handle). Errors: the inputs
  /// do not fit its schema.
  Node* insert_op(const OperatorHandle& op, std::span<Value* const> inputs);
  /// A prim::Constant holding v (None, bool, int, float, str, Device, dtype (as int), Tensor, int list,
  /// and generic lists of float, bool or str); returns its output. Errors: other kinds (tuples, dicts,
  /// tensor lists, an empty generic list whose element type is unknown).
  Value* insert_constant(const IValue& v);
  /// prim::ListConstruct of `values` (each a subtype of elem_type); output elem_type[].
  Value* insert_list(TypePtr elem_type, std::span<Value* const> values);
  /// prim::ListUnpack of a list into n values of its element type. Errors: not a list.
  Node* insert_list_unpack(Value* list, size_t n);
  /// prim::TupleConstruct; the output type is the tuple of the inputs' types.
  Value* insert_tuple(std::span<Value* const> values);
  /// prim::TupleUnpack into one value per element. Errors: not a tuple.
  Node* insert_tuple_unpack(Value* tuple);
  /// prim::DictConstruct(k0, v0, k1, v1, ...). Errors: keys.size() != values.size().
  Value* insert_dict(TypePtr key_type, TypePtr value_type, std::span<Value* const> keys,
                     std::span<Value* const> values);
  /// prim::GetAttr[name=...](obj), its output named after the attribute. The result type comes from obj's
  /// class type when it knows the attribute, else `type` (required then). Errors: obj is not of a class type;
  /// no type known.
  Value* insert_get_attr(Value* obj, const std::string& name, TypePtr type = nullptr);
  /// prim::If(cond) with two empty blocks and n outputs (fill the blocks, register their outputs).
  Node* insert_if(Value* cond, size_t num_outputs);
  /// prim::Loop(max_trip_count, cond, carried...) with one block whose inputs are (iteration : int,
  /// carried...) typed like the carried values; outputs typed the same. Register (cond, carried...) as the
  /// block's outputs.
  Node* insert_loop(Value* max_trip_count, Value* cond, std::span<Value* const> carried);

  /// A deep copy: same node order, debug names, unique numbers, types and attributes (tensor attributes and
  /// class types are shared, not cloned).
  std::shared_ptr<Graph> copy() const;
  /// The graph's text (IRPrinter.h).
  std::string str() const;
  /// Every value currently alive (for checks; unordered).
  const std::unordered_set<Value*>& all_values() const { return values_; }
  const std::unordered_set<Node*>& all_nodes() const { return nodes_; }

 private:
  friend class Node;
  friend class Block;
  friend class Value;
  friend class IRParser;
  Value* new_value(Node* n, size_t offset, TypePtr type);
  void free_value(Value* v);
  void free_node(Node* n);
  Block* new_block(Node* owner);
  void free_block(Block* b);
  void set_name(Value* v, std::string_view name);

  std::unordered_set<Node*> nodes_;
  std::unordered_set<Value*> values_;
  std::unordered_set<Block*> blocks_;
  size_t next_unique_ = 0;
  std::unordered_map<std::string, Value*> names_;
  std::unordered_map<std::string, size_t> next_suffix_;  // base name -> next ".N" to try
  Block* block_ = nullptr;
  Node* insert_before_ = nullptr;
};

/// RAII: sets a graph's insertion point and restores the previous one.
class InsertPointGuard {
 public:
  InsertPointGuard(Graph& g, Node* before) : g_(g), saved_(g.insert_point()) { g.set_insert_point(before); }
  InsertPointGuard(Graph& g, Block* b) : InsertPointGuard(g, b->return_node()) {}
  ~InsertPointGuard() { g_.set_insert_point(saved_); }
  InsertPointGuard(const InsertPointGuard&) = delete;
  InsertPointGuard& operator=(const InsertPointGuard&) = delete;

 private:
  Graph& g_;
  Node* saved_;
};

/// Note [schema matching]
/// An op node's kind names an operator without its overload ("aten::add"), as TorchScript graphs do; the
/// schema is the first overload, in registration order, that accepts the node's inputs: exactly as many
/// inputs as the schema has arguments (graphs pass every argument positionally, defaults included, so the
/// interpreter and the passes never fill defaults), each input's type a subtype of the argument's type
/// (Tensor from Tensor; int, float, bool or Scalar for Scalar; int or float for float; NoneType or T for T?;
/// int or int[] for int[N]; int for ScalarType, Layout, MemoryFormat; Any accepts everything, and a value of
/// type Any fits every argument). Out variants are overloads like the others, their `out` tensors passed
/// last (neg.out for aten::neg(%x, %out)). When several overloads accept the inputs the first registered
/// wins; overloads that accept the same types are expected to mean the same. The result is cached in the
/// node until its inputs change.

/// Whether a value of type t can be passed for a schema argument of type s (Note [schema matching]).
bool matches_schema_type(const Type& t, const SchemaType& s);
/// The IR type of a schema return ("Tensor" -> Tensor, "int[]" -> int[], "Tensor?" -> Tensor?).
TypePtr type_from_schema(const SchemaType& s);

/// The value of a prim::Constant's output, or nullopt when v is not produced by one. A tensor constant
/// without data (parsed from text without a tensor table) gives None (IValue holds no undefined tensor).
std::optional<IValue> constant_value(const Value* v);

}  // namespace ember::jit
