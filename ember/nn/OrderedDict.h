#pragma once
// ember::OrderedDict, LibTorch's torch::OrderedDict: a map that keeps insertion order, for the named
// parameters, buffers and submodules of ember::nn modules (and their state dicts).
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ember/base/Error.h"

namespace ember {

/// A map from Key to Value that iterates in insertion order (LibTorch's torch::OrderedDict).
///
/// Lookups by key are hashed; items(), keys(), values(), iteration and operator[](size_t) follow insertion
/// order. erase() keeps the order of the others (linear time). The key description ("Key" by default,
/// "Parameter", "Buffer", "Module" in ember::nn) appears in its errors:
///   insert of a key already present: "Parameter 'weight' already defined";
///   operator[] / front() / back() on a missing key or an empty dict: "Key 'x' is not defined", ...
/// Errors are ember::Error (RuntimeError; IndexError for an index out of range). Key must be hashable and
/// formattable by fmt (std::string, integers).
template <typename Key, typename Value>
class OrderedDict {
 public:
  /// One entry: a key and its value (item.key(), item.value(), *item and item-> reach the value).
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    Value& operator*() { return pair_.second; }
    const Value& operator*() const { return pair_.second; }
    Value* operator->() { return &pair_.second; }
    const Value* operator->() const { return &pair_.second; }
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  /// An empty dict whose errors call its keys key_description.
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  /// A dict of the given items in order. Errors: a key given twice.
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    reserve(items.size());
    for (const Item& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  Item& front() { return items_.at(checked_nonempty("front")); }
  const Item& front() const { return items_.at(checked_nonempty("front")); }
  Item& back() { return items_.at(checked_nonempty("back") + items_.size() - 1); }
  const Item& back() const { return items_.at(checked_nonempty("back") + items_.size() - 1); }

  /// The item at position index (insertion order). Errors: index >= size() (IndexError).
  Item& operator[](size_t index) { return items_[checked_index(index)]; }
  const Item& operator[](size_t index) const { return items_[checked_index(index)]; }

  /// The value of key. Errors: no such key ("<description> '<key>' is not defined").
  Value& operator[](const Key& key) { return items_[checked_position(key)].value(); }
  const Value& operator[](const Key& key) const { return items_[checked_position(key)].value(); }

  /// The value of key, or null when absent.
  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }

  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void reserve(size_t capacity) {
    items_.reserve(capacity);
    index_.reserve(capacity);
  }

  /// Appends key -> value and returns the stored value. Errors: key already present ("<description> '<key>'
  /// already defined").
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    EMBER_CHECK(!contains(key), "{} '{}' already defined", key_description_, key);
    index_.emplace(key, items_.size());
    items_.emplace_back(Key(std::forward<K>(key)), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  Value& insert(Key key, Value&& value) { return insert<Key, Value>(std::move(key), std::move(value)); }

  /// Inserts every item of other in its order. Errors: a key already present (items before it are kept).
  void update(const OrderedDict& other) {
    for (const Item& item : other) insert(item.key(), item.value());
  }
  void update(OrderedDict&& other) {
    for (Item& item : other) insert(item.key(), std::move(item.value()));
  }

  /// Removes key, keeping the order of the rest. Errors: no such key.
  void erase(const Key& key) {
    const size_t pos = checked_position(key);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    index_.erase(key);
    for (auto& entry : index_)
      if (entry.second > pos) --entry.second;
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

  const std::vector<Item>& items() const noexcept { return items_; }
  /// The keys in order (a copy).
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  /// The values in order (a copy).
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }
  /// The (key, value) pairs in order (a copy).
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.pair());
    return out;
  }

  /// Same keys and values in the same order (the description is not compared).
  friend bool operator==(const OrderedDict& a, const OrderedDict& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a.items_[i].key() == b.items_[i].key() && a.items_[i].value() == b.items_[i].value())) return false;
    return true;
  }

 private:
  size_t checked_position(const Key& key) const {
    auto it = index_.find(key);
    EMBER_CHECK(it != index_.end(), "{} '{}' is not defined", key_description_, key);
    return it->second;
  }
  size_t checked_index(size_t index) const {
    EMBER_CHECK_INDEX(index < items_.size(), "OrderedDict: index {} is out of bounds for a dict of {} items", index,
                      items_.size());
    return index;
  }
  size_t checked_nonempty(const char* what) const {
    EMBER_CHECK(!items_.empty(), "OrderedDict: called {}() on an empty dict", what);
    return 0;
  }

  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
