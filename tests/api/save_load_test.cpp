// ember::save / ember::load of tensors and lists of tensors (LibTorch's torch::save / torch::load), in the
// archive Python's ember.save writes: files written by Python load here (fixtures/make_fixtures.py), and
// CppWritesForPython.Files writes the files tests/python/test_cpp_save_load.py reads back in Python.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "TestSupport.h"
#include "ember/ember.h"

namespace {

using ember::Tensor;
using ember::testing::make_tensor;
using ember::testing::values;

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "/" + name; }

TEST(SaveLoad, TensorRoundTripKeepsGeometryAndRequiresGrad) {
  Tensor x = ember::arange(12, ember::kFloat64).reshape({3, 4}).t();  // non-contiguous
  x.requires_grad_();
  ember::save(x, temp_path("t.ember"));
  Tensor y;
  ember::load(y, temp_path("t.ember"));
  EXPECT_EQ(y.sizes().vec(), x.sizes().vec());
  EXPECT_EQ(y.strides().vec(), x.strides().vec());
  EXPECT_TRUE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  EXPECT_TRUE(ember::equal(y, x.detach()));

  for (const Tensor& t : {ember::full({}, 2.5, ember::kFloat32), ember::zeros({0, 3}, ember::kInt32),
                          make_tensor<int64_t>({-7, 1LL << 40})}) {
    ember::save(t, temp_path("u.ember"));
    Tensor u;
    ember::load(u, temp_path("u.ember"));
    EXPECT_EQ(u.dtype(), t.dtype());
    EXPECT_EQ(u.sizes().vec(), t.sizes().vec());
    EXPECT_TRUE(ember::equal(u, t));
    EXPECT_FALSE(u.requires_grad());
  }
}

TEST(SaveLoad, ListRoundTripSharesStorages) {
  Tensor a = ember::arange(6, ember::kFloat32).reshape({2, 3});
  std::vector<Tensor> in{a, a.index({1}), ember::ones({2}, ember::kBool)};
  ember::save(in, temp_path("l.ember"));
  std::vector<Tensor> out{ember::zeros({1})};  // replaced, not appended to
  ember::load(out, temp_path("l.ember"));
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(ember::equal(out[i], in[i])) << i;
  out[1].fill_(-1);  // the view still views the first tensor's storage
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 2, -1, -1, -1}));
  std::vector<Tensor> none;
  ember::save(none, temp_path("empty.ember"));
  ember::load(out, temp_path("empty.ember"));
  EXPECT_TRUE(out.empty());
}

TEST(SaveLoad, Errors) {
  ember::save(ember::ones({2}), temp_path("one.ember"));
  ember::save(std::vector<Tensor>{ember::ones({2})}, temp_path("list.ember"));
  Tensor t;
  std::vector<Tensor> v;
  EMBER_EXPECT_ERROR(ember::load(t, temp_path("list.ember")), Runtime, "expected a tensor but the archive holds a");
  EMBER_EXPECT_ERROR(ember::load(v, temp_path("one.ember")), Runtime, "expected a list of tensors");
  EMBER_EXPECT_ERROR(ember::load(t, temp_path("missing.ember")), Runtime, "missing.ember");
  EMBER_EXPECT_ERROR(ember::save(Tensor(), temp_path("x.ember")), Runtime, "undefined");
  EMBER_EXPECT_ERROR(ember::save(std::vector<Tensor>{ember::ones({1}), Tensor()}, temp_path("x.ember")), Runtime,
                     "tensor 1 of the list is undefined");
  ember::serialize::save(ember::IValue::list({ember::IValue(ember::ones({1})), ember::IValue(int64_t{3})}),
                         temp_path("mixed.ember"));
  EMBER_EXPECT_ERROR(ember::load(v, temp_path("mixed.ember")), Runtime, "item 1 is a");
}

TEST(SaveLoad, ReadsWhatPythonWrote) {
  Tensor a;
  ember::load(a, std::string(EMBER_TEST_FIXTURES) + "/py_tensor.ember");
  EXPECT_EQ(a.dtype(), ember::kFloat64);
  EXPECT_EQ(values<double>(a), (std::vector<double>{1.5, -2.0, 3.25, 4.0, 5.0, -6.5}));
  EXPECT_EQ(a.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(a.requires_grad());
  std::vector<Tensor> l;
  ember::load(l, std::string(EMBER_TEST_FIXTURES) + "/py_list.ember");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].dtype(), ember::kInt32);
  EXPECT_EQ(values<int32_t>(l[0]), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values<int32_t>(l[1]), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(l[1].data_ptr(), l[0].data_ptr());  // b.t() shares b's storage
  EXPECT_EQ(l[2].dim(), 0);
  EXPECT_EQ(l[2].item<float>(), 7.0f);
}

// Writes cpp_tensor.ember and cpp_list.ember into $EMBER_API_SAVE_DIR (set by tests/python/test_cpp_save_load.py,
// which checks them in Python), or a temporary folder when run with the other tests.
TEST(CppWritesForPython, Files) {
  const char* env = std::getenv("EMBER_API_SAVE_DIR");
  std::string dir = env ? env : ::testing::TempDir();
  Tensor w = ember::arange(6, ember::kFloat32).reshape({2, 3}).mul(0.5);
  w.requires_grad_();
  ember::save(w, dir + "/cpp_tensor.ember");
  Tensor base = ember::arange(8, ember::kInt64).reshape({2, 4});
  ember::save(std::vector<Tensor>{base, base.index({ember::indexing::Slice(), ember::indexing::Slice(1, 3)}),
                                  ember::full({}, -3.5, ember::kFloat64)},
              dir + "/cpp_list.ember");
  EXPECT_TRUE(std::filesystem::exists(dir + "/cpp_list.ember"));
}

}  // namespace
