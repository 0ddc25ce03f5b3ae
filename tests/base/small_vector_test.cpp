// SmallVector: inline storage up to N, heap growth beyond, value semantics on copy and move.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/base/SmallVector.h"

namespace {

using Vec = ember::SmallVector<int64_t, 4>;

bool is_inline(const Vec& v) {
  auto p = reinterpret_cast<const char*>(v.data());
  auto b = reinterpret_cast<const char*>(&v);
  return p >= b && p < b + sizeof(Vec);
}
std::vector<int64_t> vals(const Vec& v) { return {v.begin(), v.end()}; }

TEST(SmallVector, InlineThenHeap) {
  Vec v;
  EXPECT_TRUE(v.empty());
  for (int64_t i = 0; i < 4; ++i) v.push_back(i * 10);
  EXPECT_TRUE(is_inline(v));
  EXPECT_EQ(v.size(), 4u);
  v.push_back(40);
  EXPECT_FALSE(is_inline(v));
  EXPECT_EQ(vals(v), (std::vector<int64_t>{0, 10, 20, 30, 40}));
  for (int64_t i = 5; i < 100; ++i) v.push_back(i * 10);
  ASSERT_EQ(v.size(), 100u);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<int64_t>(i) * 10);
  EXPECT_EQ(v.back(), 990);
  v.pop_back();
  EXPECT_EQ(v.back(), 980);
  v.clear();
  EXPECT_TRUE(v.empty());
}

TEST(SmallVector, Constructors) {
  Vec a{1, 2, 3};
  EXPECT_EQ(vals(a), (std::vector<int64_t>{1, 2, 3}));
  Vec b(6, 7);
  EXPECT_EQ(vals(b), (std::vector<int64_t>(6, 7)));
  std::vector<int64_t> src{5, 6, 7, 8, 9};
  Vec c(src.begin(), src.end());
  EXPECT_EQ(vals(c), src);
  Vec d(std::span<const int64_t>(src.data(), 2));
  EXPECT_EQ(vals(d), (std::vector<int64_t>{5, 6}));
  EXPECT_TRUE(a == Vec({1, 2, 3}));
  EXPECT_FALSE(a == Vec({1, 2}));
  EXPECT_FALSE(a == Vec({1, 2, 4}));
}

TEST(SmallVector, CopyIsIndependent) {
  for (size_t n : {2u, 9u}) {  // inline and heap sources
    Vec a;
    for (size_t i = 0; i < n; ++i) a.push_back(static_cast<int64_t>(i));
    Vec b(a);
    EXPECT_EQ(vals(b), vals(a));
    EXPECT_NE(b.data(), a.data());
    b[0] = 100;
    EXPECT_EQ(a[0], 0);
    Vec c{42};
    c = a;
    EXPECT_EQ(vals(c), vals(a));
    c[1] = -1;
    EXPECT_EQ(a[1], 1);
    Vec big(20, 3);
    big = a;  // heap destination receives a smaller vector
    EXPECT_EQ(vals(big), vals(a));
    Vec& self = c;
    c = self;
    EXPECT_EQ(vals(c)[0], 0);
  }
}

TEST(SmallVector, MoveStealsHeapBuffer) {
  Vec a(10, 5);
  const int64_t* buf = a.data();
  Vec b(std::move(a));
  EXPECT_EQ(b.data(), buf);
  EXPECT_EQ(vals(b), (std::vector<int64_t>(10, 5)));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): documented state of a moved-from heap vector
  a.push_back(1);          // moved-from vector is usable
  EXPECT_EQ(vals(a), (std::vector<int64_t>{1}));

  Vec c(12, 1);
  c = std::move(b);  // heap -> heap: old buffer of c freed, b's buffer taken
  EXPECT_EQ(c.data(), buf);
  EXPECT_EQ(c.size(), 10u);

  Vec d{1, 2};
  Vec e(std::move(d));  // inline source is copied
  EXPECT_EQ(vals(e), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(is_inline(e));
  Vec f(8, 0);
  f = std::move(e);
  EXPECT_EQ(vals(f), (std::vector<int64_t>{1, 2}));
  Vec& g = f;
  f = std::move(g);
  EXPECT_EQ(vals(f), (std::vector<int64_t>{1, 2}));
}

TEST(SmallVector, InsertAndErase) {
  Vec v{1, 2, 3};
  v.insert(v.begin(), 0);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(is_inline(v));
  v.insert(v.begin() + 2, 9);  // grows to the heap while inserting in the middle
  EXPECT_EQ(vals(v), (std::vector<int64_t>{0, 1, 9, 2, 3}));
  EXPECT_FALSE(is_inline(v));
  v.insert(v.end(), 7);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{0, 1, 9, 2, 3, 7}));
  v.erase(v.begin());
  EXPECT_EQ(vals(v), (std::vector<int64_t>{1, 9, 2, 3, 7}));
  v.erase(v.begin() + 2);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{1, 9, 3, 7}));
  v.erase(v.end() - 1);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{1, 9, 3}));
  Vec w{5, 6, 7, 8};  // full inline: inserting an element of itself
  w.insert(w.begin() + 1, w[3]);
  EXPECT_EQ(vals(w), (std::vector<int64_t>{5, 8, 6, 7, 8}));
}

TEST(SmallVector, ResizeReserveAssign) {
  Vec v{1, 2};
  v.resize(6, 9);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{1, 2, 9, 9, 9, 9}));
  v.resize(1);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{1}));
  v.reserve(50);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{1}));
  const int64_t* p = v.data();
  for (int i = 0; i < 49; ++i) v.push_back(i);
  EXPECT_EQ(v.data(), p);  // no reallocation within the reserved capacity
  v.assign(3, 4);
  EXPECT_EQ(vals(v), (std::vector<int64_t>{4, 4, 4}));
}

TEST(ArrayRef, Views) {
  std::vector<int64_t> v{1, 2, 3};
  ember::IntArrayRef a(v);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.data(), v.data());
  EXPECT_TRUE(a.equals({1, 2, 3}));
  EXPECT_FALSE(a.equals({1, 2}));
  EXPECT_EQ(a.vec(), v);
  EXPECT_EQ(a.back(), 3);
  int64_t one = 5;
  ember::IntArrayRef b(one);
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], 5);
  ember::DimVector dv{4, 5};
  ember::IntArrayRef c(dv);
  EXPECT_EQ(c.data(), dv.data());
  EXPECT_EQ(fmt::format("{}", c), "[4, 5]");
  EXPECT_TRUE(ember::IntArrayRef().empty());
}

}  // namespace
