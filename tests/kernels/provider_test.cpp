// The provider registry (Note [providers]): kernels are tried by priority, equal priorities in registration
// order; a kernel whose supports() refuses the arguments, or whose provider is switched off, falls through to
// the next one and finally to the op's reference kernel. Then the real GEMM slot: OpenBLAS registered as
// "blas", a test provider placed above it, and BLAS against the reference on transposed, sliced and broadcast
// operands.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"
#include "ember/kernels/cpu/Gemm.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::values;

// ---- a slot of its own, with fake providers that record which one ran
struct FakeArgs {
  int size = 0;
  std::string* ran = nullptr;
};

template <int Id, int MaxSize>
struct Fake {
  static bool supports(const FakeArgs& a) { return a.size <= MaxSize; }
  static void run(const FakeArgs& a) { *a.ran += std::to_string(Id); }
};

std::string run_slot(const cpu::ProviderSlot<FakeArgs>& slot, int size) {
  std::string ran;
  FakeArgs a{size, &ran};
  if (!slot.run(a)) ran = "reference";
  return ran;
}

TEST(Providers, PriorityThenRegistrationOrder) {
  cpu::ProviderSlot<FakeArgs> slot("fake");
  cpu::Provider &low = cpu::provider("test_low"), &first = cpu::provider("test_first"),
                &second = cpu::provider("test_second");
  slot.add(low, 10, &Fake<1, 100>::supports, &Fake<1, 100>::run);
  slot.add(first, 50, &Fake<2, 100>::supports, &Fake<2, 100>::run);
  slot.add(second, 50, &Fake<3, 100>::supports, &Fake<3, 100>::run);
  std::vector<std::string> order;
  for (const auto& k : slot.kernels()) order.push_back(k.provider->name());
  EXPECT_EQ(order, (std::vector<std::string>{"test_first", "test_second", "test_low"}));
  EXPECT_EQ(run_slot(slot, 1), "2");  // the highest priority, first registered of the two
  EXPECT_EQ(std::string(slot.name()), "fake");
}

TEST(Providers, SupportsFallsThrough) {
  cpu::ProviderSlot<FakeArgs> slot("fake");
  slot.add(cpu::provider("test_small_only"), 50, &Fake<1, 10>::supports, &Fake<1, 10>::run);
  slot.add(cpu::provider("test_medium"), 20, &Fake<2, 100>::supports, &Fake<2, 100>::run);
  EXPECT_EQ(run_slot(slot, 5), "1");
  EXPECT_EQ(run_slot(slot, 50), "2");           // the first refuses: the next one runs
  EXPECT_EQ(run_slot(slot, 500), "reference");  // nobody supports it: the op's reference kernel
  FakeArgs big{500, nullptr};
  EXPECT_EQ(slot.select(big), nullptr);
}

TEST(Providers, SwitchingOff) {
  cpu::ProviderSlot<FakeArgs> slot("fake");
  cpu::Provider& a = cpu::provider("test_switch_a");
  cpu::Provider& b = cpu::provider("test_switch_b");
  slot.add(a, 50, &Fake<1, 100>::supports, &Fake<1, 100>::run);
  slot.add(b, 20, &Fake<2, 100>::supports, &Fake<2, 100>::run);
  EXPECT_EQ(run_slot(slot, 1), "1");
  cpu::set_provider_enabled("test_switch_a", false);
  EXPECT_FALSE(cpu::provider_enabled("test_switch_a"));
  EXPECT_FALSE(a.enabled());
  EXPECT_EQ(run_slot(slot, 1), "2");
  b.set_enabled(false);
  EXPECT_EQ(run_slot(slot, 1), "reference");
  a.set_enabled(true);
  b.set_enabled(true);
  EXPECT_EQ(run_slot(slot, 1), "1");
}

TEST(Providers, ByName) {
  EXPECT_EQ(&cpu::provider("test_by_name"), &cpu::provider("test_by_name"));  // one object per name
  EXPECT_EQ(cpu::find_provider("test_never_created"), nullptr);
  bool listed = false;
  for (cpu::Provider* p : cpu::providers()) listed |= p->name() == "blas";
  EXPECT_TRUE(listed);
  EMBER_EXPECT_ERROR(cpu::set_provider_enabled("no_such_provider", false), Runtime, "known: ");
  EMBER_EXPECT_ERROR(cpu::provider_enabled("no_such_provider"), Runtime, "no provider called 'no_such_provider'");
}

// ---- the GEMM slot
cpu::GemmArgs gemm_args(DType dtype) {
  cpu::GemmArgs g;
  g.dtype = dtype;
  g.m = g.n = g.k = 2;
  g.a = {nullptr, 2, 2, 0, 2, 1};
  g.b = g.a;
  g.c = g.a;
  return g;
}

TEST(GemmProviders, BlasIsRegisteredForFloatingTypes) {
  auto kernels = cpu::gemm_providers().kernels();
  ASSERT_FALSE(kernels.empty());
  bool has_blas = false;
  for (const auto& k : kernels) has_blas |= k.provider->name() == "blas";
  EXPECT_TRUE(has_blas);
  ASSERT_TRUE(backends::blas::enabled());
  // float32 products go to oneDNN first (Note [onednn gemm]), float64 and matrix-vector products to OpenBLAS.
  const auto* k32 = cpu::gemm_providers().select(gemm_args(kFloat32));
  ASSERT_NE(k32, nullptr);
  EXPECT_EQ(k32->provider->name(), "onednn");
  cpu::GemmArgs mv = gemm_args(kFloat32);
  mv.n = 1;
  mv.c.cols = mv.b.cols = 1;
  ASSERT_NE(cpu::gemm_providers().select(mv), nullptr);
  EXPECT_EQ(cpu::gemm_providers().select(mv)->provider->name(), "blas");
  const auto* k64 = cpu::gemm_providers().select(gemm_args(kFloat64));
  ASSERT_NE(k64, nullptr);
  EXPECT_EQ(k64->provider->name(), "blas");
  for (DType d : {kInt32, kInt64, kFloat16, kBFloat16, kBool})
    EXPECT_EQ(cpu::gemm_providers().select(gemm_args(d)), nullptr) << d;
  backends::onednn::set_enabled(false);
  EXPECT_EQ(cpu::gemm_providers().select(gemm_args(kFloat32))->provider->name(), "blas");
  backends::blas::set_enabled(false);
  EXPECT_EQ(cpu::gemm_providers().select(gemm_args(kFloat32)), nullptr);
  backends::blas::set_enabled(true);
  backends::onednn::set_enabled(true);
  EXPECT_NE(backends::onednn::config().find("oneDNN"), std::string::npos) << backends::onednn::config();
  EXPECT_NE(backends::blas::config().find("OpenBLAS"), std::string::npos) << backends::blas::config();
  EXPECT_NE(backends::blas::config().find("openblas-openmp"), std::string::npos) << backends::blas::config();
}

// A provider above OpenBLAS that only takes (3, k) @ (k, 5) float32 products and fills C with 42.
std::atomic<int> g_test_calls{0};
bool test_supports(const cpu::GemmArgs& g) { return g.dtype == kFloat32 && g.m == 3 && g.n == 5; }
void test_run(const cpu::GemmArgs& g) {
  ++g_test_calls;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j)
      static_cast<float*>(g.c.data)[i * g.c.row_stride + j * g.c.col_stride] = 42.0f;
}

TEST(GemmProviders, AProviderAboveBlas) {
  cpu::Provider& p = cpu::provider("gtest_gemm");
  cpu::gemm_providers().add(p, 1000, &test_supports, &test_run);
  Tensor a = ones({3, 4}), b = ones({4, 5});
  EXPECT_EQ(values<float>(mm(a, b)), std::vector<float>(15, 42.0f));
  EXPECT_EQ(g_test_calls.load(), 1);
  EXPECT_EQ(values<float>(mm(ones({2, 4}), ones({4, 5}))), std::vector<float>(10, 4.0f));  // refused: BLAS
  EXPECT_EQ(values<float>(mm(a.to(kFloat64), b.to(kFloat64)).to(kFloat32)), std::vector<float>(15, 4.0f));
  EXPECT_EQ(g_test_calls.load(), 1);
  p.set_enabled(false);
  EXPECT_EQ(values<float>(mm(a, b)), std::vector<float>(15, 4.0f));
  EXPECT_EQ(g_test_calls.load(), 1);
}

// ---- BLAS and the reference kernel agree on every layout the op kernels hand them
void expect_close(const Tensor& x, const Tensor& y, double rtol = 1e-9) {
  auto a = values<double>(x.to(kFloat64)), b = values<double>(y.to(kFloat64));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], rtol * (1 + std::fabs(b[i]))) << i;
}

TEST(GemmProviders, BlasMatchesReference) {
  Tensor base = arange(0, 96, 1, kFloat64).reshape({8, 12}).sub(40).div(7);
  std::vector<std::pair<Tensor, Tensor>> cases = {
      {base.narrow(1, 0, 8), base.narrow(0, 0, 8)},                        // row-major with a leading dim
      {base.t().narrow(0, 0, 5), base.narrow(1, 0, 3)},                    // transposed left operand
      {base.slice(1, 0, std::nullopt, 2), base.slice(0, 0, 6).t().slice(0, 0, 6)},  // step 2: packed
      {base.narrow(0, 0, 1), base.t().narrow(1, 0, 4)},                    // one row: gemv on B's transpose
      {base.narrow(1, 0, 6), base.select(0, 0).narrow(0, 0, 6).unsqueeze(1)},  // one column: gemv
      {base.select(1, 0).unsqueeze(0), base.select(1, 1).unsqueeze(1)},    // 1x1: dot
      {ones({4, 3}, kFloat64), make_tensor<double>({1, 2, 3}, {3, 1}).expand({3, 6})},  // stride 0
  };
  for (const auto& [a, b] : cases) {
    Tensor blas = mm(a, b);
    backends::blas::set_enabled(false);
    Tensor ref = mm(a, b);
    backends::blas::set_enabled(true);
    expect_close(blas, ref);
    expect_close(mm(a.to(kFloat32), b.to(kFloat32)).to(kFloat64), ref, 1e-5);
  }
  // Batches, transposed output via out=, and addmm's beta.
  Tensor b1 = base.reshape({2, 4, 12}), b2 = base.reshape({2, 12, 4});
  Tensor out = empty({2, 4, 4}, kFloat64).transpose(1, 2);
  Tensor c = ones({4, 4}, kFloat64);
  Tensor blas_bmm = bmm(b1, b2), blas_out = bmm_out(out, b1, b2).clone(),
         blas_addmm = addmm(c, b1.select(0, 0), b2.select(0, 1), 0.5, 2);
  backends::blas::set_enabled(false);
  expect_close(blas_bmm, bmm(b1, b2));
  expect_close(blas_out, bmm_out(out, b1, b2));
  expect_close(blas_addmm, addmm(c, b1.select(0, 0), b2.select(0, 1), 0.5, 2));
  backends::blas::set_enabled(true);
}

TEST(GemmProviders, ReferenceCoversIntegers) {
  Tensor a = make_tensor<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}), b = make_tensor<int64_t>({7, 8, 9, 10, 11, 12}, {3, 2});
  EXPECT_EQ(values<int64_t>(mm(a, b)), (std::vector<int64_t>{58, 64, 139, 154}));
  Tensor i8 = full({1, 3}, 100, kInt8);  // 3 * 100 * 100 = 30000 wraps to 48, as PyTorch
  EXPECT_EQ(values<int8_t>(mm(i8, i8.t())), (std::vector<int8_t>{48}));
}

}  // namespace
