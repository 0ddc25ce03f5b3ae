// LibTorch names a porting trial found missing (issue 8): Tensor::options(), from_blob without a dtype and with
// strides and options, Scalar's toDouble()/toFloat()/toLong()/toInt(), ember::allclose / Tensor::allclose.
// The values of isclose/allclose against PyTorch 1.13 are checked on the Python side
// (tests/python/test_isclose.py), which calls the same op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "TestSupport.h"
#include "ember/ember.h"

namespace {

using ember::Tensor;

TEST(LibTorchNames, OptionsCarryDtypeAndDeviceButNotRequiresGrad) {
  Tensor w = ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kFloat64).requires_grad(true));
  ember::TensorOptions o = w.options();
  EXPECT_EQ(o.dtype(), ember::kFloat64);
  EXPECT_TRUE(o.device().is_cpu());
  EXPECT_FALSE(o.requires_grad());  // as LibTorch's Tensor::options()
  Tensor like = ember::ones({4}, w.options());
  EXPECT_EQ(like.dtype(), ember::kFloat64);
  EXPECT_FALSE(like.requires_grad());
  Tensor grad_like = ember::ones({4}, w.options().requires_grad(true));
  EXPECT_TRUE(grad_like.requires_grad());
  EXPECT_EQ(ember::arange(3, ember::kInt32).options().dtype(), ember::kInt32);
  EXPECT_TRUE(ember::TensorOptions().device().is_cpu());  // unset device: the CPU
}

TEST(LibTorchNames, FromBlobDefaultsToFloat32AndSharesMemory) {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  Tensor t = ember::from_blob(data.data(), {2, 3});
  EXPECT_EQ(t.dtype(), ember::kFloat32);
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.data_ptr<float>(), data.data());  // not copied
  data[4] = 50;
  EXPECT_EQ(t.index({1, 1}).item<float>(), 50.0f);
}

TEST(LibTorchNames, FromBlobWithStridesAndOptions) {
  std::vector<double> data{0, 1, 2, 3, 4, 5};
  // A column-major 2x3 view: element (i, j) at i + 2 j.
  Tensor t = ember::from_blob(data.data(), {2, 3}, {1, 2}, ember::TensorOptions().dtype(ember::kFloat64));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(ember::equal(t, ember::tensor({{0.0, 2.0, 4.0}, {1.0, 3.0, 5.0}}, ember::kFloat64)));
  Tensor g = ember::from_blob(data.data(), {3}, {2}, ember::dtype(ember::kFloat64).requires_grad(true));
  EXPECT_TRUE(g.requires_grad());
  EXPECT_TRUE(ember::equal(g.detach(), ember::tensor({0.0, 2.0, 4.0}, ember::kFloat64)));
  Tensor f = ember::from_blob(data.data(), {2}, ember::TensorOptions());  // options without dtype: float32
  EXPECT_EQ(f.dtype(), ember::kFloat32);
  EMBER_EXPECT_ERROR(ember::from_blob(data.data(), {2, 3}, {1}, ember::dtype(ember::kFloat64)), Runtime,
                     "2 sizes but 1 strides");
  EMBER_EXPECT_ERROR(ember::from_blob(data.data(), {2}, ember::device(ember::Device("cuda:0"))), Runtime,
                     "only CPU memory");
}

TEST(LibTorchNames, ScalarConversionsHaveLibTorchSpellings) {
  ember::Scalar d(2.75);
  EXPECT_EQ(d.toDouble(), 2.75);
  EXPECT_EQ(d.toFloat(), 2.75f);
  EXPECT_EQ(d.toLong(), 2);  // truncates, as C++ and c10::Scalar
  EXPECT_EQ(d.toInt(), 2);
  EXPECT_TRUE(d.toBool());
  EXPECT_TRUE(d.isFloatingPoint());
  ember::Scalar i(int64_t{-7});
  EXPECT_EQ(i.toDouble(), -7.0);
  EXPECT_EQ(i.toInt(), -7);
  EXPECT_TRUE(i.isIntegral(false));
  ember::Scalar b(true);
  EXPECT_FALSE(b.isIntegral(false));
  EXPECT_TRUE(b.isIntegral(true));
  EXPECT_TRUE(b.isBoolean());
  Tensor t = ember::tensor({3.5});
  EXPECT_EQ(t.item().toFloat(), 3.5f);
}

TEST(LibTorchNames, AllcloseAsFunctionAndMethod) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Tensor a = ember::tensor({1.0, 2.0, inf, nan}, ember::kFloat64);
  Tensor b = ember::tensor({1.0 + 1e-6, 2.0, inf, nan}, ember::kFloat64);
  EXPECT_FALSE(ember::allclose(a, b));  // NaN is not close to NaN by default
  EXPECT_TRUE(ember::allclose(a, b, 1e-5, 1e-8, /*equal_nan=*/true));
  EXPECT_TRUE(a.allclose(b, 1e-5, 1e-8, true));
  EXPECT_FALSE(a.allclose(b, 0.0, 0.0, true));  // 1 vs 1 + 1e-6 with no tolerance
  Tensor close = ember::isclose(a, b, 1e-5, 1e-8, true);
  EXPECT_EQ(close.dtype(), ember::kBool);
  EXPECT_TRUE(ember::equal(a.isclose(b), ember::tensor({true, true, true, false})));
  // Broadcasting, integers (compared in the default dtype with tolerances), empty tensors.
  EXPECT_TRUE(ember::allclose(ember::ones({2, 1}), ember::ones({3})));
  EXPECT_TRUE(ember::allclose(ember::tensor({100}), ember::tensor({101}), 0.01, 0.0));
  EXPECT_FALSE(ember::allclose(ember::tensor({100}), ember::tensor({102}), 0.01, 0.0));
  EXPECT_TRUE(ember::allclose(ember::zeros({0, 3}), ember::zeros({0, 3})));
  EMBER_EXPECT_ERROR(ember::allclose(ember::tensor({1}), ember::tensor({1.0})), Runtime, "did not match");
  EMBER_EXPECT_ERROR(ember::allclose(a, b, -1.0), Runtime, "rtol must be greater than or equal to zero");
  EMBER_EXPECT_ERROR(ember::allclose(ember::ones({2}), ember::ones({3})), Runtime, "");
}

}  // namespace

namespace {

TEST(LibTorchNames, CudaAnswersNoGpu) {
  EXPECT_FALSE(ember::cuda::is_available());
  EXPECT_EQ(ember::cuda::device_count(), 0u);
  EXPECT_FALSE(ember::cuda::cudnn_is_available());
  ember::cuda::manual_seed_all(1);  // compiles and does nothing
  ember::Device device(ember::cuda::is_available() ? ember::kCUDA : ember::kCPU);
  EXPECT_TRUE(device.is_cpu());
  EXPECT_EQ(ember::Device(ember::kCUDA).str(), "cuda");
  ember::DeviceType type = ember::kCUDA;  // LibTorch's kCUDA is a DeviceType, usable as a Device
  EXPECT_TRUE(ember::Device(type).is_cuda());
  EXPECT_EQ(ember::zeros(3, ember::kCPU).device(), ember::kCPU);
  EXPECT_THROW(ember::zeros(3, ember::kCUDA), ember::Error);
  ember::Tensor x = ember::ones({2}, ember::TensorOptions().device(device));
  EXPECT_TRUE(x.is_cpu());
}

}  // namespace
