#include "ember/jit/ir/Graph.h"

#include <algorithm>
#include <limits>

#include "ember/base/Error.h"
#include "ember/jit/ir/IRPrinter.h"

namespace ember::jit {

namespace {
// Note [node order]: positions are spread this far apart when appended or renumbered.
constexpr int64_t kPositionGap = int64_t{1} << 32;
constexpr int64_t kFirstPosition = std::numeric_limits<int64_t>::min();
constexpr int64_t kLastPosition = std::numeric_limits<int64_t>::max();

bool valid_name(std::string_view name) {
  bool all_digits = true;
  for (char c : name) {
    bool digit = c >= '0' && c <= '9';
    bool ok = digit || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
    if (!ok) return false;
    all_digits = all_digits && digit;
  }
  return !all_digits;
}
}  // namespace

// ================================================================ Value

Graph* Value::owning_graph() const { return node_->owning_graph(); }

Value* Value::set_type(TypePtr type) {
  EMBER_CHECK(type, "jit: set_type(nullptr) on %{}", display_name());
  type_ = std::move(type);
  return this;
}

std::string Value::display_name() const { return name_.empty() ? std::to_string(unique_) : name_; }

Value* Value::set_debug_name(std::string_view name) {
  EMBER_CHECK(name.empty() || valid_name(name),
              "jit: '{}' is not a valid value name (letters, digits, '_' and '.', not only digits)", name);
  owning_graph()->set_name(this, name);
  return this;
}

void Value::remove_use(Node* user, size_t offset) {
  auto it = std::find(uses_.begin(), uses_.end(), Use{user, offset});
  EMBER_CHECK(it != uses_.end(), "jit: internal error: use-list of %{} lacks a use", display_name());
  uses_.erase(it);
}

void Value::replace_all_uses_with(Value* v) {
  EMBER_CHECK(v && v != this, "jit: replace_all_uses_with: %{} cannot be replaced by {}", display_name(),
              v ? "itself" : "null");
  EMBER_CHECK(v->owning_graph() == owning_graph(), "jit: replace_all_uses_with: %{} and %{} are of different graphs",
              display_name(), v->display_name());
  for (const Use& u : uses_) {
    u.user->inputs_[u.offset] = v;
    u.user->inputs_changed();
    v->uses_.push_back(u);
  }
  uses_.clear();
}

void Value::replace_all_uses_after_node_with(const Node* after, Value* v) {
  EMBER_CHECK(v && v != this && v->owning_graph() == owning_graph(),
              "jit: replace_all_uses_after_node_with: bad replacement for %{}", display_name());
  std::vector<Use> keep;
  for (const Use& u : uses_) {
    if (u.user->is_after(after)) {
      u.user->inputs_[u.offset] = v;
      u.user->inputs_changed();
      v->uses_.push_back(u);
    } else {
      keep.push_back(u);
    }
  }
  uses_ = std::move(keep);
}

// ================================================================ NodeRange

NodeRange::iterator& NodeRange::iterator::operator++() {
  n_ = reverse_ ? n_->prev() : n_->next();
  return *this;
}

// ================================================================ Node

Value* Node::input(size_t i) const {
  EMBER_CHECK_INDEX(i < inputs_.size(), "jit: input {} of a node with {} inputs: {}", i, inputs_.size(), str());
  return inputs_[i];
}

Value* Node::output(size_t i) const {
  EMBER_CHECK_INDEX(i < outputs_.size(), "jit: output {} of a node with {} outputs: {}", i, outputs_.size(),
                    str());
  return outputs_[i];
}

Value* Node::output() const {
  EMBER_CHECK(outputs_.size() == 1, "jit: output() of a node with {} outputs: {}", outputs_.size(), str());
  return outputs_[0];
}

void Node::check_same_graph(const Value* v, const char* what) const {
  EMBER_CHECK(v, "jit: {}: null value for node {}", what, kind_.qual_string());
  EMBER_CHECK(v->owning_graph() == graph_, "jit: {}: %{} belongs to another graph than {}", what, v->display_name(),
              kind_.qual_string());
}

// ---- list

void Node::link_between(Node* prev, Node* next, Block* b) {
  prev_ = prev;
  next_ = next;
  prev->next_ = this;
  next->prev_ = this;
  block_ = b;
  int64_t lo = prev->position_, hi = next->position_;
  uint64_t gap = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (next == b->return_ && lo <= kLastPosition - 2 * kPositionGap) {
    position_ = lo + kPositionGap;  // appending: leave room for more appends and insertions
  } else if (gap >= 2) {
    position_ = static_cast<int64_t>(static_cast<uint64_t>(lo) + gap / 2);
  } else {
    b->renumber();
  }
}

namespace {
// Whether n sits (at any depth) inside one of the blocks of `outer`.
bool nested_in(const Node* n, const Node* outer) {
  for (const Block* b = n->owning_block(); b && b->owning_node(); b = b->owning_node()->owning_block())
    if (b->owning_node() == outer) return true;
  return false;
}
}  // namespace

Node* Node::insert_before(Node* n) {
  EMBER_CHECK(!in_block_list(), "jit: insert_before: the node is already in a block: {}", str());
  EMBER_CHECK(n && n->in_block_list() && n->graph_ == graph_,
              "jit: insert_before: the target node is not inserted in this graph");
  EMBER_CHECK(n->kind_ != prim::Param, "jit: insert_before: cannot insert before a block's Param node");
  EMBER_CHECK(!nested_in(n, this), "jit: insert_before: cannot insert a node into its own blocks: {}", str());
  link_between(n->prev_, n, n->block_);
  return this;
}

Node* Node::insert_after(Node* n) {
  EMBER_CHECK(!in_block_list(), "jit: insert_after: the node is already in a block: {}", str());
  EMBER_CHECK(n && n->in_block_list() && n->graph_ == graph_,
              "jit: insert_after: the target node is not inserted in this graph");
  EMBER_CHECK(n->kind_ != prim::Return, "jit: insert_after: cannot insert after a block's Return node");
  EMBER_CHECK(!nested_in(n, this), "jit: insert_after: cannot insert a node into its own blocks: {}", str());
  link_between(n, n->next_, n->block_);
  return this;
}

void Node::remove_from_list() {
  EMBER_CHECK(in_block_list(), "jit: remove_from_list: the node is not in a block: {}", str());
  EMBER_CHECK(kind_ != prim::Param && kind_ != prim::Return,
              "jit: a block's {} node cannot leave its block", kind_.qual_string());
  prev_->next_ = next_;
  next_->prev_ = prev_;
  prev_ = next_ = nullptr;
  block_ = nullptr;
}

void Node::move_before(Node* n) {
  EMBER_CHECK(n != this && !nested_in(n, this), "jit: move_before: cannot move a node into its own blocks: {}",
              str());
  remove_from_list();
  insert_before(n);
}

void Node::move_after(Node* n) {
  EMBER_CHECK(n != this && !nested_in(n, this), "jit: move_after: cannot move a node into its own blocks: {}",
              str());
  remove_from_list();
  insert_after(n);
}

bool Node::is_before(const Node* n) const {
  EMBER_CHECK(in_block_list() && n->in_block_list(), "jit: is_before on a node that is not inserted");
  if (this == n) return false;
  if (block_ == n->block_) return position_ < n->position_;
  auto depth = [](const Node* x) {
    int d = 0;
    for (const Block* b = x->block_; b->owning_node(); b = b->owning_node()->block_) ++d;
    return d;
  };
  const Node* a = this;
  const Node* b = n;
  int da = depth(a), db = depth(b);
  for (; da > db; --da) a = a->block_->owning_node();
  for (; db > da; --db) b = b->block_->owning_node();
  while (a->block_ != b->block_) {
    a = a->block_->owning_node();
    b = b->block_->owning_node();
  }
  return a != b && a->position_ < b->position_;
}

// ---- inputs

Value* Node::add_input(Value* v) { return insert_input(inputs_.size(), v); }

Value* Node::insert_input(size_t i, Value* v) {
  check_same_graph(v, "add_input");
  EMBER_CHECK_INDEX(i <= inputs_.size(), "jit: insert_input at {} of a node with {} inputs", i, inputs_.size());
  // From the back, so a value used at j and j+1 never has two entries at one offset midway.
  for (size_t j = inputs_.size(); j-- > i;) {
    for (Use& u : inputs_[j]->uses_)
      if (u.user == this && u.offset == j) {
        ++u.offset;
        break;
      }
  }
  inputs_.insert(inputs_.begin() + static_cast<std::ptrdiff_t>(i), v);
  v->uses_.push_back({this, i});
  inputs_changed();
  return v;
}

Value* Node::replace_input(size_t i, Value* v) {
  check_same_graph(v, "replace_input");
  EMBER_CHECK_INDEX(i < inputs_.size(), "jit: replace_input {} of a node with {} inputs", i, inputs_.size());
  Value* old = inputs_[i];
  old->remove_use(this, i);
  inputs_[i] = v;
  v->uses_.push_back({this, i});
  inputs_changed();
  return old;
}

void Node::replace_input_with(Value* from, Value* to) {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i] == from) replace_input(i, to);
}

void Node::remove_input(size_t i) {
  EMBER_CHECK_INDEX(i < inputs_.size(), "jit: remove_input {} of a node with {} inputs", i, inputs_.size());
  inputs_[i]->remove_use(this, i);
  for (size_t j = i + 1; j < inputs_.size(); ++j) {
    for (Use& u : inputs_[j]->uses_)
      if (u.user == this && u.offset == j) {
        --u.offset;
        break;
      }
  }
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(i));
  inputs_changed();
}

void Node::remove_all_inputs() {
  for (size_t i = 0; i < inputs_.size(); ++i) inputs_[i]->remove_use(this, i);
  inputs_.clear();
  inputs_changed();
}

// ---- outputs

Value* Node::add_output() { return insert_output(outputs_.size()); }

Value* Node::insert_output(size_t i) {
  EMBER_CHECK_INDEX(i <= outputs_.size(), "jit: insert_output at {} of a node with {} outputs", i, outputs_.size());
  Value* v = graph_->new_value(this, i, Type::tensor_type());
  outputs_.insert(outputs_.begin() + static_cast<std::ptrdiff_t>(i), v);
  for (size_t j = i + 1; j < outputs_.size(); ++j) outputs_[j]->offset_ = j;
  return v;
}

void Node::erase_output(size_t i) {
  EMBER_CHECK_INDEX(i < outputs_.size(), "jit: erase_output {} of a node with {} outputs", i, outputs_.size());
  Value* v = outputs_[i];
  EMBER_CHECK(!v->has_uses(), "jit: cannot erase output %{} of {}: it is still used by {}", v->display_name(),
              str(), v->uses_[0].user->str());
  outputs_.erase(outputs_.begin() + static_cast<std::ptrdiff_t>(i));
  for (size_t j = i; j < outputs_.size(); ++j) outputs_[j]->offset_ = j;
  graph_->free_value(v);
}

void Node::replace_all_uses_with(Node* n) {
  EMBER_CHECK(n && n->outputs_.size() == outputs_.size(),
              "jit: replace_all_uses_with: {} has {} outputs, the replacement {}", str(), outputs_.size(),
              n ? std::to_string(n->outputs_.size()) : std::string("is null"));
  for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i]->replace_all_uses_with(n->outputs_[i]);
}

// ---- blocks

Block* Node::add_block() {
  Block* b = graph_->new_block(this);
  blocks_.push_back(b);
  return b;
}

void Node::erase_block(size_t i) {
  EMBER_CHECK_INDEX(i < blocks_.size(), "jit: erase_block {} of a node with {} blocks", i, blocks_.size());
  Block* b = blocks_[i];
  b->check_no_outside_uses();
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
  graph_->free_block(b);
}

void Node::destroy() {
  EMBER_CHECK(kind_ != prim::Param && kind_ != prim::Return,
              "jit: a block's {} node is destroyed with its block only", kind_.qual_string());
  for (Value* v : outputs_) {
    EMBER_CHECK(!v->has_uses(), "jit: cannot destroy {}: its output %{} is still used by {}", str(),
                v->display_name(), v->uses_[0].user->str());
  }
  for (Block* b : blocks_) b->check_no_outside_uses();
  graph_->free_node(this);
}

// ---- attributes

const Attribute* Node::find_attribute(std::string_view name) const {
  for (const Attribute& a : attrs_)
    if (a.name == name) return &a;
  return nullptr;
}

Node* Node::set_attribute(std::string name, Attribute::Value value) {
  for (Attribute& a : attrs_) {
    if (a.name == name) {
      a.value = std::move(value);
      return this;
    }
  }
  attrs_.push_back({std::move(name), std::move(value)});
  return this;
}

void Node::remove_attribute(std::string_view name) {
  auto it = std::find_if(attrs_.begin(), attrs_.end(), [&](const Attribute& a) { return a.name == name; });
  EMBER_CHECK(it != attrs_.end(), "jit: {} has no attribute '{}'", kind_.qual_string(), name);
  attrs_.erase(it);
}

namespace {
template <class T>
const T& get_attr(const Node* n, std::string_view name, AttributeKind want) {
  const Attribute* a = n->find_attribute(name);
  EMBER_CHECK(a, "jit: {} has no attribute '{}'", n->kind().qual_string(), name);
  EMBER_CHECK(a->kind() == want, "jit: attribute '{}' of {} is of kind {}, not {}", name, n->kind().qual_string(),
              attribute_kind_name(a->kind()), attribute_kind_name(want));
  return std::get<T>(a->value);
}
}  // namespace

int64_t Node::i(std::string_view name) const { return get_attr<int64_t>(this, name, AttributeKind::i); }
double Node::f(std::string_view name) const { return get_attr<double>(this, name, AttributeKind::f); }
const std::string& Node::s(std::string_view name) const {
  return get_attr<std::string>(this, name, AttributeKind::s);
}
const std::vector<int64_t>& Node::is(std::string_view name) const {
  return get_attr<std::vector<int64_t>>(this, name, AttributeKind::is);
}
const std::vector<double>& Node::fs(std::string_view name) const {
  return get_attr<std::vector<double>>(this, name, AttributeKind::fs);
}
const std::vector<std::string>& Node::ss(std::string_view name) const {
  return get_attr<std::vector<std::string>>(this, name, AttributeKind::ss);
}
const Tensor& Node::t(std::string_view name) const { return get_attr<Tensor>(this, name, AttributeKind::t); }

std::string Node::str() const { return node_line(this); }

// ================================================================ Block

Block::Block(Graph* g, Node* owning_node) : graph_(g), owning_node_(owning_node) {
  param_ = new Node(g, prim::Param);
  return_ = new Node(g, prim::Return);
  g->nodes_.insert(param_);
  g->nodes_.insert(return_);
  param_->block_ = return_->block_ = this;
  param_->next_ = return_;
  return_->prev_ = param_;
  param_->position_ = kFirstPosition;
  return_->position_ = kLastPosition;
}

std::span<Value* const> Block::inputs() const { return param_->outputs(); }
std::span<Value* const> Block::outputs() const { return return_->inputs(); }

Value* Block::add_input(std::string_view name, TypePtr type) {
  return insert_input(param_->outputs_.size(), name, std::move(type));
}

Value* Block::insert_input(size_t i, std::string_view name, TypePtr type) {
  Value* v = param_->insert_output(i);
  if (type) v->set_type(std::move(type));
  if (!name.empty()) v->set_debug_name(name);
  return v;
}

void Block::erase_input(size_t i) { param_->erase_output(i); }
size_t Block::register_output(Value* v) {
  return_->add_input(v);
  return return_->inputs_.size() - 1;
}
void Block::insert_output(size_t i, Value* v) { return_->insert_input(i, v); }
void Block::erase_output(size_t i) { return_->remove_input(i); }

NodeRange Block::nodes() const { return NodeRange(param_->next_, return_, false); }
NodeRange Block::reverse_nodes() const { return NodeRange(return_->prev_, param_, true); }

void Block::renumber() {
  int64_t pos = kFirstPosition;
  for (Node* n = param_->next_; n != return_; n = n->next_) {
    pos += kPositionGap;
    n->position_ = pos;
  }
}

void Block::check_no_outside_uses() const {
  // Every use of a value defined here must be by a node of this block (at any depth) or its Return node.
  auto inside = [&](const Node* user) {
    for (const Block* b = user->owning_block(); b; b = b->owning_node() ? b->owning_node()->owning_block() : nullptr)
      if (b == this) return true;
    return false;
  };
  auto check_node = [&](const Node* n, auto&& self) -> void {
    for (const Value* v : n->outputs()) {
      for (const Use& u : v->uses()) {
        EMBER_CHECK(u.user->in_block_list() && inside(u.user),
                    "jit: cannot destroy a block: %{} defined in it is still used outside it by {}",
                    v->display_name(), u.user->str());
      }
    }
    for (const Block* b : n->blocks())
      for (const Node* m = b->param_node(); m; m = m->next()) self(m, self);
  };
  for (const Node* n = param_; n; n = n->next()) check_node(n, check_node);
}

// ================================================================ Graph

Graph::Graph() {
  block_ = new_block(nullptr);
  insert_before_ = block_->return_node();
}

Graph::~Graph() {
  for (Value* v : values_) delete v;
  for (Node* n : nodes_) delete n;
  for (Block* b : blocks_) delete b;
}

Value* Graph::new_value(Node* n, size_t offset, TypePtr type) {
  Value* v = new Value(n, offset, next_unique_++, std::move(type));
  values_.insert(v);
  return v;
}

void Graph::free_value(Value* v) {
  if (!v->name_.empty()) names_.erase(v->name_);
  values_.erase(v);
  delete v;
}

Block* Graph::new_block(Node* owner) {
  Block* b = new Block(this, owner);
  blocks_.insert(b);
  return b;
}

void Graph::free_block(Block* b) {
  // Reverse order: a node's outputs are used only by later nodes and the Return node, gone by then.
  b->return_->remove_all_inputs();
  for (Node* n = b->return_->prev_; n != b->param_;) {
    Node* prev = n->prev_;
    free_node(n);
    n = prev;
  }
  for (Node* end : {b->param_, b->return_}) {
    end->block_ = nullptr;
    end->prev_ = end->next_ = nullptr;
    free_node(end);
  }
  blocks_.erase(b);
  delete b;
}

void Graph::free_node(Node* n) {
  if (insert_before_ == n) insert_before_ = block_->return_node();
  while (!n->blocks_.empty()) {
    Block* b = n->blocks_.back();
    n->blocks_.pop_back();
    free_block(b);
  }
  if (n->in_block_list()) n->remove_from_list();
  n->remove_all_inputs();
  for (Value* v : n->outputs_) free_value(v);
  nodes_.erase(n);
  delete n;
}

void Graph::set_name(Value* v, std::string_view name) {
  if (!v->name_.empty()) {
    names_.erase(v->name_);
    v->name_.clear();
  }
  if (name.empty()) return;
  std::string want(name);
  auto taken = names_.find(want);
  if (taken != names_.end()) {
    // Note [value names]: the previous owner moves to base.N.
    std::string base = want;
    size_t suffix = 1;
    size_t dot = want.rfind('.');
    if (dot != std::string::npos && dot + 1 < want.size() &&
        want.find_first_not_of("0123456789", dot + 1) == std::string::npos && want.size() - dot - 1 < 18) {
      base = want.substr(0, dot);
      suffix = std::stoull(want.substr(dot + 1));
    }
    size_t& next = next_suffix_[base];
    suffix = std::max(suffix, next);
    std::string replacement;
    do {
      replacement = base + "." + std::to_string(suffix++);
    } while (names_.count(replacement));
    next = suffix;
    Value* old = taken->second;
    names_.erase(taken);
    old->name_ = replacement;
    names_.emplace(replacement, old);
  }
  v->name_ = want;
  names_.emplace(std::move(want), v);
}

Node* Graph::create(Symbol kind, std::span<Value* const> inputs, size_t num_outputs) {
  EMBER_CHECK(kind.valid(), "jit: create: invalid node kind");
  EMBER_CHECK(kind != prim::Param && kind != prim::Return, "jit: create: {} nodes belong to blocks",
              kind.qual_string());
  Node* n = new Node(this, kind);
  nodes_.insert(n);
  for (Value* v : inputs) n->add_input(v);
  for (size_t i = 0; i < num_outputs; ++i) n->add_output();
  return n;
}

void Graph::set_insert_point(Node* n) {
  EMBER_CHECK(n && n->owning_graph() == this && n->in_block_list() && n->kind() != prim::Param,
              "jit: set_insert_point: the node must be an inserted node of this graph (not a Param node)");
  insert_before_ = n;
}

std::string Graph::str() const { return to_string(*this); }

}  // namespace ember::jit
