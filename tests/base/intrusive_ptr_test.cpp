// intrusive_ptr: one count inside the object; copies count, moves do not; the last owner deletes.
#include <gtest/gtest.h>

#include <thread>
#include <utility>
#include <vector>

#include "ember/base/intrusive_ptr.h"

namespace {

int g_live = 0;

struct Base : ember::intrusive_target {
  Base() { ++g_live; }
  ~Base() override { --g_live; }
  int value = 1;
};
struct Derived : Base {
  Derived() { value = 2; }
};

TEST(IntrusivePtr, CountsCopiesNotMoves) {
  ASSERT_EQ(g_live, 0);
  {
    auto p = ember::make_intrusive<Base>();
    EXPECT_EQ(p.use_count(), 1u);
    EXPECT_EQ(g_live, 1);
    {
      ember::intrusive_ptr<Base> q = p;
      EXPECT_EQ(p.use_count(), 2u);
      EXPECT_TRUE(q == p);
      ember::intrusive_ptr<Base> r = std::move(q);
      EXPECT_EQ(p.use_count(), 2u);
      EXPECT_FALSE(q);  // NOLINT(bugprone-use-after-move)
      EXPECT_EQ(q.use_count(), 0u);
    }
    EXPECT_EQ(p.use_count(), 1u);
    ember::intrusive_ptr<Base> s;
    s = p;
    EXPECT_EQ(p.use_count(), 2u);
    s = ember::intrusive_ptr<Base>();
    EXPECT_EQ(p.use_count(), 1u);
    EXPECT_EQ(g_live, 1);
  }
  EXPECT_EQ(g_live, 0);
}

TEST(IntrusivePtr, LastOwnerDeletes) {
  auto p = ember::make_intrusive<Base>();
  auto q = p;
  p.reset();
  EXPECT_FALSE(p);
  EXPECT_EQ(g_live, 1);
  EXPECT_EQ(q->value, 1);
  q.reset();
  EXPECT_EQ(g_live, 0);
}

TEST(IntrusivePtr, SelfAssignmentKeepsObject) {
  auto p = ember::make_intrusive<Base>();
  auto& alias = p;
  p = alias;
  EXPECT_EQ(p.use_count(), 1u);
  p = std::move(alias);
  EXPECT_TRUE(p);
  EXPECT_EQ(p.use_count(), 1u);
  EXPECT_EQ(g_live, 1);
  p.reset();
  EXPECT_EQ(g_live, 0);
}

TEST(IntrusivePtr, ReleaseAndReclaim) {
  auto p = ember::make_intrusive<Base>();
  Base* raw = p.release();
  EXPECT_FALSE(p);
  EXPECT_EQ(raw->use_count(), 1u);
  EXPECT_EQ(g_live, 1);
  {
    auto back = ember::intrusive_ptr<Base>::reclaim(raw);
    EXPECT_EQ(back.use_count(), 1u);
  }
  EXPECT_EQ(g_live, 0);
}

TEST(IntrusivePtr, RawPointerConstructorRetains) {
  auto p = ember::make_intrusive<Base>();
  {
    ember::intrusive_ptr<Base> q(p.get());
    EXPECT_EQ(p.use_count(), 2u);
  }
  EXPECT_EQ(p.use_count(), 1u);
  EXPECT_EQ(g_live, 1);
}

TEST(IntrusivePtr, UpcastTransfersOwnership) {
  auto d = ember::make_intrusive<Derived>();
  ember::intrusive_ptr<Base> b = d;  // copy, then converted: two owners
  EXPECT_EQ(d.use_count(), 2u);
  EXPECT_EQ(b->value, 2);
  ember::intrusive_ptr<Base> c = std::move(d);
  EXPECT_EQ(c.use_count(), 2u);
  b.reset();
  c.reset();
  EXPECT_EQ(g_live, 0);
}

TEST(IntrusivePtr, Swap) {
  auto a = ember::make_intrusive<Base>();
  auto b = ember::make_intrusive<Derived>();
  Base* pa = a.get();
  ember::intrusive_ptr<Base> bb = std::move(b);
  a.swap(bb);
  EXPECT_EQ(bb.get(), pa);
  EXPECT_EQ(a->value, 2);
}

TEST(IntrusivePtr, ConcurrentCopiesBalance) {
  auto p = ember::make_intrusive<Base>();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&p] {
      for (int i = 0; i < 20000; ++i) {
        ember::intrusive_ptr<Base> q = p;
        (void)q;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(p.use_count(), 1u);
  p.reset();
  EXPECT_EQ(g_live, 0);
}

}  // namespace
