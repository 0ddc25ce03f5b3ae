// The loop engine through the ops: non-contiguous, sliced, broadcast, 0-dim and zero-size operands, out=
// resizing and dtype rules, in-place version counting, memory overlap, and threading.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::Shape;
using ember::testing::values;
using ember::testing::vec;

TEST(Iterator, NonContiguousInputs) {
  Tensor a = arange(6, kFloat32).reshape({2, 3});  // [[0,1,2],[3,4,5]]
  Tensor b = make_tensor<float>({10, 20, 30, 40, 50, 60}, {3, 2});
  EXPECT_EQ(values<float>(add(a.t(), b)), (std::vector<float>{10, 23, 31, 44, 52, 65}));  // a.t() = [[0,3],[1,4],[2,5]]
  EXPECT_EQ(values<float>(mul(a.t(), a.t())), (std::vector<float>{0, 9, 1, 16, 4, 25}));
  Tensor stepped = arange(10, kInt64).slice(0, std::nullopt, std::nullopt, 3);  // [0, 3, 6, 9]
  EXPECT_EQ(values<int64_t>(add(stepped, 1)), (std::vector<int64_t>{1, 4, 7, 10}));
  Tensor cube = arange(24, kInt32).reshape({2, 3, 4});
  Tensor p = cube.permute({2, 0, 1});
  Tensor r = sub(p, p.contiguous());
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>(24, 0)));
  EXPECT_EQ(vec(r.sizes()), (Shape{4, 2, 3}));
  Tensor off = cube.select(2, 3);  // offset and strides (12, 4)
  EXPECT_EQ(values<int32_t>(mul(off, 2)), (std::vector<int32_t>{6, 14, 22, 30, 38, 46}));
}

TEST(Iterator, Broadcasting) {
  Tensor col = make_tensor<int64_t>({0, 10, 20}, {3, 1}), row = make_tensor<int64_t>({0, 1, 2, 3}, {1, 4});
  Tensor s = add(col, row);
  EXPECT_EQ(vec(s.sizes()), (Shape{3, 4}));
  EXPECT_EQ(values<int64_t>(s), (std::vector<int64_t>{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}));
  Tensor e = make_tensor<float>({1, 2}).expand({3, 2});  // stride-0 input
  EXPECT_EQ(values<float>(mul(e, make_tensor<float>({1, 2, 3}, {3, 1}))), (std::vector<float>{1, 2, 2, 4, 3, 6}));
  Tensor z = scalar_tensor(5, kInt64);
  EXPECT_EQ(values<int64_t>(sub(make_tensor<int64_t>({1, 2}), z)), (std::vector<int64_t>{-4, -3}));
  Tensor zz = add(scalar_tensor(1.5), scalar_tensor(2.0));
  EXPECT_EQ(zz.dim(), 0);
  EXPECT_EQ(zz.item<float>(), 3.5f);
  EXPECT_EQ(vec(add(make_tensor<float>({}, {0, 3}), ones({1, 3})).sizes()), (Shape{0, 3}));
  EXPECT_EQ(vec(mul(zeros({2, 0}), 3).sizes()), (Shape{2, 0}));
  EXPECT_EQ(vec(add(zeros({2, 1, 0}), zeros({3, 1})).sizes()), (Shape{2, 3, 0}));
  EMBER_EXPECT_ERROR(add(zeros({0}), zeros({2})), Runtime,
                     "The size of tensor a (0) must match the size of tensor b (2)");
}

TEST(Iterator, OutVariants) {
  Tensor a = make_tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}), b = make_tensor<float>({10, 20, 30});
  Tensor out = empty({0});
  Tensor r = add_out(out, a, b);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(vec(out.sizes()), (Shape{2, 3}));  // resized from (0,)
  EXPECT_EQ(values<float>(out), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  Tensor big = empty({10});
  add_out(big, b, b);  // a larger out= shrinks to the result shape
  EXPECT_EQ(vec(big.sizes()), (Shape{3}));
  EXPECT_EQ(values<float>(big), (std::vector<float>{20, 40, 60}));
  Tensor wide = empty({2, 3}, kFloat64);
  add_out(wide, a, b);  // a wider out= dtype receives the float32 result converted
  EXPECT_EQ(values<double>(wide), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  Tensor narrow = empty({2, 3}, kInt64);
  EMBER_EXPECT_ERROR(add_out(narrow, a, b), Runtime, "can't be cast to the desired output type int64");
  EMBER_EXPECT_ERROR(div_out(empty({3}, kInt32), make_tensor<int32_t>({1, 2, 3}), make_tensor<int32_t>({1, 1, 1})),
                     Runtime, "can't be cast");
  Tensor bout = empty({3}, kBool);
  lt_out(bout, b, scalar_tensor(25, kInt64));
  EXPECT_EQ(values<bool>(bout), (std::vector<bool>{true, true, false}));
  Tensor fout = empty({3}, kFloat32);
  eq_out(fout, b, make_tensor<float>({10, 0, 30}));  // comparisons may write any dtype
  EXPECT_EQ(values<float>(fout), (std::vector<float>{1, 0, 1}));
  Tensor tout = empty({3, 2}).t();  // a non-contiguous out= of the right shape is written through its strides
  add_out(tout, a, b);
  EXPECT_EQ(vec(tout.strides()), (Shape{1, 2}));
  EXPECT_EQ(values<float>(tout), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(Iterator, InPlaceRules) {
  Tensor x = make_tensor<float>({1, 2, 3});
  uint32_t v0 = x._version();
  Tensor r = x.add_(make_tensor<float>({1, 1, 1}));
  EXPECT_TRUE(r.is_same(x));
  EXPECT_EQ(x._version(), v0 + 1);
  x.mul_(make_tensor<double>({2}, {}));  // a wider 0-dim operand is fine: computed and cast back
  EXPECT_EQ(x._version(), v0 + 2);
  EXPECT_EQ(values<float>(x), (std::vector<float>{4, 6, 8}));
  x.sub_(make_tensor<int64_t>({1, 1, 1}), 2);
  EXPECT_EQ(values<float>(x), (std::vector<float>{2, 4, 6}));
  operator+=(x, make_tensor<float>({1, 1, 1}));
  EXPECT_EQ(values<float>(x), (std::vector<float>{3, 5, 7}));
  Tensor i = make_tensor<int64_t>({1, 2});
  EMBER_EXPECT_ERROR(i.add_(make_tensor<float>({1.5f, 1.5f})), Runtime,
                     "result type float32 can't be cast to the desired output type int64");
  EMBER_EXPECT_ERROR(i.div_(make_tensor<int64_t>({1, 1})), Runtime, "can't be cast");
  EMBER_EXPECT_ERROR(ember::testing::make_bool_tensor({1}, {1}).add_(make_tensor<int64_t>({1})), Runtime,
                     "can't be cast");
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{1, 2}));  // a failed in-place op leaves self unchanged
  EMBER_EXPECT_ERROR(make_tensor<float>({1}).add_(ones({2, 1})), Runtime,
                     "output with shape [1] doesn't match the broadcast shape [2, 1]");
  Tensor base = zeros({2, 3});
  uint32_t bv = base._version();
  base.select(0, 1).add_(ones({3}));  // through a view: the base's version moves
  EXPECT_EQ(base._version(), bv + 1);
  EXPECT_EQ(values<float>(base), (std::vector<float>{0, 0, 0, 1, 1, 1}));
  Tensor f = full({3}, 2.0);
  f.div_(make_tensor<int64_t>({4, 4, 4}));
  EXPECT_EQ(values<float>(f), (std::vector<float>{0.5f, 0.5f, 0.5f}));
}

TEST(Iterator, MemoryOverlap) {
  Tensor x = arange(9, kFloat32).reshape({3, 3});
  EMBER_EXPECT_ERROR(x.add_(x.t()), Runtime, "unsupported operation");
  Tensor y = arange(6, kFloat32);
  EMBER_EXPECT_ERROR(y.slice(0, 1).add_(y.slice(0, 0, -1)), Runtime, "unsupported operation");
  Tensor e = zeros({1}).expand({4});
  EMBER_EXPECT_ERROR(e.add_(ones({4})), Runtime, "more than one element of the written-to tensor");
  Tensor z = arange(4, kFloat32);
  z.add_(z);  // the same memory exactly is fine
  EXPECT_EQ(values<float>(z), (std::vector<float>{0, 2, 4, 6}));
}

TEST(Iterator, ThreadingGivesTheSameResults) {
  int saved = get_num_threads();
  EXPECT_GE(saved, 1);
  Tensor a = linspace(-3, 3, 200003), b = linspace(1, 2, 200003);
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  Tensor serial_sum = add(a, b), serial_exp = exp(a), serial_div = div(a, b, "floor");
  Tensor serial_t = mul(a.slice(0, std::nullopt, std::nullopt, 7), 3);
  set_num_threads(std::max(saved, 2));
  EXPECT_TRUE(add(a, b).equal(serial_sum));
  EXPECT_TRUE(exp(a).equal(serial_exp));
  EXPECT_TRUE(div(a, b, "floor").equal(serial_div));
  EXPECT_TRUE(mul(a.slice(0, std::nullopt, std::nullopt, 7), 3).equal(serial_t));
  // An error raised inside a parallel region reaches the caller.
  Tensor ints = ones({200000}, kInt64);
  Tensor zs = ones({200000}, kInt64);
  zs.narrow(0, 150000, 1).zero_();
  EMBER_EXPECT_ERROR(floor_divide(ints, zs), Runtime, "ZeroDivisionError");
  set_num_threads(saved);
  EMBER_EXPECT_ERROR(set_num_threads(0), Runtime, "set_num_threads");
}

}  // namespace
