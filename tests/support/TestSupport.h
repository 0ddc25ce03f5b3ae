#pragma once
// Helpers shared by the GoogleTest suites: printing Ember values in assertion messages, checking the kind and
// text of a raised ember::Error, and building small tensors from literal values (through public headers only).
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember {
// gtest prints these in failure messages (found by argument-dependent lookup; DType prints by its own operator<<).
inline std::ostream& operator<<(std::ostream& os, ErrorKind k) {
  const char* names[] = {"Runtime", "Index", "Type", "Value", "NotImplemented", "LinAlg"};
  return os << names[static_cast<int>(k)];
}
}  // namespace ember

namespace ember::testing {

/// Runs f, which must throw ember::Error of `kind`; returns the error for further checks on its message.
template <class F>
Error expect_error(F&& f, ErrorKind kind = ErrorKind::Runtime) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected ember::Error, got another exception: " << e.what();
    return Error(ErrorKind::Runtime, "");
  }
  ADD_FAILURE() << "no ember::Error thrown";
  return Error(ErrorKind::Runtime, "");
}

/// Whether `text` contains `part` (for error messages), with the whole text in the failure message.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

/// Raises with `kind` and a message containing `part`.
#define EMBER_EXPECT_ERROR(stmt, kind, part)                                                       \
  EXPECT_TRUE(::ember::testing::contains(                                                         \
      ::ember::testing::expect_error([&] { (void)(stmt); }, ::ember::ErrorKind::kind).what(), part))

/// A contiguous tensor of dtype D and the given sizes holding `values` (row-major).
template <class T>
Tensor make_tensor(const std::vector<T>& values, IntArrayRef sizes) {
  Tensor t = make_empty(sizes, dtype_of<T>());
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size()) << "make_tensor: wrong number of values";
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  return t;
}
template <class T>
Tensor make_tensor(const std::vector<T>& values) {
  return make_tensor(values, {static_cast<int64_t>(values.size())});
}
inline Tensor make_bool_tensor(const std::vector<int>& values, IntArrayRef sizes) {
  Tensor t = make_empty(sizes, kBool);
  for (size_t i = 0; i < values.size(); ++i) t.data_ptr<bool>()[i] = values[i] != 0;
  return t;
}

/// The elements of t in row-major (logical) order, read through its strides, as T (t's dtype must be T).
template <class T>
std::vector<T> values(const Tensor& t) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(t.numel()));
  if (t.numel() == 0) return out;
  const T* base = t.data_ptr<T>();
  std::vector<int64_t> idx(static_cast<size_t>(t.dim()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.strides()[d];
    out.push_back(base[off]);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++idx[d] < t.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

inline std::vector<int64_t> vec(IntArrayRef a) { return a.vec(); }
using Shape = std::vector<int64_t>;

}  // namespace ember::testing
