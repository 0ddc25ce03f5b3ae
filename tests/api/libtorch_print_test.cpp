// `std::cout << tensor` prints as LibTorch 1.13 prints (Note [LibTorch's tensor printing]). Each expected text
// was printed by LibTorch 1.13 (Debian's libtorch-dev) for the same tensor.
#include <gtest/gtest.h>

#include <iomanip>
#include <sstream>

#include "ember/ember.h"

namespace {

std::string printed(const ember::Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

TEST(LibTorchPrint, MatchesLibTorch) {
  EXPECT_EQ(printed(ember::arange(6, ember::kFloat32).reshape({2, 3})), " 0  1  2\n 3  4  5\n[ CPUFloatType{2,3} ]");
  EXPECT_EQ(printed(ember::zeros({4}, ember::kCPU)), " 0\n 0\n 0\n 0\n[ CPUFloatType{4} ]");
  EXPECT_EQ(printed(ember::full({2, 2}, 1.5, ember::dtype(ember::kDouble))),
            " 1.5000  1.5000\n 1.5000  1.5000\n[ CPUDoubleType{2,2} ]");
  EXPECT_EQ(printed(ember::empty({0, 3})), "[ CPUFloatType{0,3} ]");
  EXPECT_EQ(printed(ember::tensor(3.5)), "3.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(printed(ember::tensor({true, false, true})), " 1\n 0\n 1\n[ CPUBoolType{3} ]");
  EXPECT_EQ(printed(ember::arange(24).reshape({2, 3, 4})),
            "(1,.,.) = \n   0   1   2   3\n   4   5   6   7\n   8   9  10  11\n\n"
            "(2,.,.) = \n  12  13  14  15\n  16  17  18  19\n  20  21  22  23\n[ CPULongType{2,3,4} ]");
  EXPECT_EQ(printed((ember::arange(8, ember::kDouble) / 3).reshape({2, 2, 2})),
            "(1,.,.) = \n  0.0000  0.3333\n  0.6667  1.0000\n\n"
            "(2,.,.) = \n  1.3333  1.6667\n  2.0000  2.3333\n[ CPUDoubleType{2,2,2} ]");
  EXPECT_EQ(printed(ember::linspace(0, 1, 5) * 1000), "    0\n  250\n  500\n  750\n 1000\n[ CPUFloatType{5} ]");
  EXPECT_EQ(printed(ember::tensor({1e-5, 1.0, 123456.0})),
            " 1.0000e-05\n 1.0000e+00\n 1.2346e+05\n[ CPUFloatType{3} ]");
  // A common scale factor; LibTorch takes an all-negative tensor's first magnitude as its largest.
  EXPECT_EQ(printed(ember::tensor({{-0.042509f, -0.005114f}, {-0.167589f, -0.042436f}})),
            "0.01 *\n-4.2509 -0.5114\n -16.7589 -4.2436\n[ CPUFloatType{2,2} ]");
  EXPECT_EQ(printed(ember::Tensor()), "[ Tensor (undefined) ]");
}

TEST(LibTorchPrint, FourDimsAndWideRowsAndStreamState) {
  // The first leading dim varies fastest, as LibTorch's; rows wider than 80 characters split into column blocks.
  std::string four = printed(ember::arange(8).reshape({2, 2, 1, 2}));
  EXPECT_EQ(four, "(1,1,.,.) = \n  0  1\n\n(2,1,.,.) = \n  4  5\n\n(1,2,.,.) = \n  2  3\n\n(2,2,.,.) = \n  6  7\n"
                  "[ CPULongType{2,2,1,2} ]");
  std::string wide = printed(ember::arange(30).reshape({1, 30}) * 1000);
  EXPECT_NE(wide.find("Columns 1 to 11"), std::string::npos) << wide;
  // The caller's stream format is left as it was.
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << ember::tensor({0.5, 0.25}) << ' ' << 1.0;
  EXPECT_EQ(os.str().substr(os.str().size() - 4), "1.00");
}

}  // namespace
