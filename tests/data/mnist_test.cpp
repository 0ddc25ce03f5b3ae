// ember::data::datasets::MNIST over small IDX files written by the tests (plain and gzip, train and test
// splits, every way the pair of files can be wrong), through a DataLoader, and over the real Fashion-MNIST files
// of Debian's dataset-fashion-mnist when they are installed (values recorded by
// tests/data/fixtures/make_fixtures.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "DataFixtures.h"
#include "IdxFiles.h"
#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using namespace ember::data;
using ember::testing::Bytes;
using ember::testing::data_fixture;
using ember::testing::idx_file;
using ember::testing::Shape;
using ember::testing::values;
using ember::testing::vec;
using Mode = datasets::MNIST::Mode;

class Mnist : public ember::testing::TempDirTest {
 public:
  /// Three 2 x 3 images and their labels.
  const std::vector<uint8_t> pixels{0, 1, 2, 3, 127, 128, 200, 254, 255, 9, 8, 7, 10, 20, 30, 40, 50, 60};
  const std::vector<uint8_t> labels{7, 0, 9};

  /// Writes the image and label files of a split (`prefix` train or t10k), gzip-compressed or plain.
  void write_split(const std::string& prefix, bool compressed, const std::vector<uint8_t>& px,
                   const std::vector<uint8_t>& lb) {
    auto write = compressed ? &Mnist::gz : &Mnist::plain;
    const std::string ext = compressed ? ".gz" : "";
    (this->*write)(prefix + "-images-idx3-ubyte" + ext, idx_file<uint8_t>(0x08, {uint32_t(px.size() / 6), 2, 3}, px));
    (this->*write)(prefix + "-labels-idx1-ubyte" + ext, idx_file<uint8_t>(0x08, {uint32_t(lb.size())}, lb));
  }
  std::string root() const { return dir_.string(); }
};

/// p / 255 in float32 for each byte.
std::vector<float> scaled(const std::vector<uint8_t>& bytes) {
  std::vector<float> out;
  for (uint8_t b : bytes) out.push_back(static_cast<float>(b) / 255.0f);
  return out;
}

TEST_F(Mnist, ReadsImagesAsFloatsInZeroOneAndTargetsAsInt64) {
  for (bool compressed : {false, true}) {
    SCOPED_TRACE(compressed ? "gzip" : "plain");
    write_split("train", compressed, pixels, labels);
    datasets::MNIST ds(root());
    EXPECT_TRUE(ds.is_train());
    EXPECT_EQ(ds.size(), std::optional<size_t>(3));
    EXPECT_EQ(ds.images().dtype(), kFloat32);
    EXPECT_EQ(vec(ds.images().sizes()), (Shape{3, 1, 2, 3}));
    EXPECT_EQ(values<float>(ds.images()), scaled(pixels));
    EXPECT_EQ(ds.targets().dtype(), kInt64);
    EXPECT_EQ(values<int64_t>(ds.targets()), (std::vector<int64_t>{7, 0, 9}));
    Example<> e = ds.get(1);
    EXPECT_EQ(vec(e.data.sizes()), (Shape{1, 2, 3}));
    EXPECT_EQ(values<float>(e.data), scaled({200, 254, 255, 9, 8, 7}));
    EXPECT_EQ(e.target.dim(), 0);
    EXPECT_EQ(e.target.item<int64_t>(), 0);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
}

TEST_F(Mnist, TestModeReadsTheT10kFiles) {
  write_split("train", false, pixels, labels);
  write_split("t10k", true, {1, 2, 3, 4, 5, 6}, {4});
  datasets::MNIST test(root(), Mode::kTest);
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(test.size(), std::optional<size_t>(1));
  EXPECT_EQ(values<int64_t>(test.targets()), (std::vector<int64_t>{4}));
  EXPECT_EQ(datasets::MNIST(root(), Mode::kTrain).size(), std::optional<size_t>(3));
}

TEST_F(Mnist, PlainFileIsPreferredOverGzip) {
  write_split("train", false, pixels, labels);
  write_split("train", true, {1, 1, 1, 1, 1, 1}, {1});  // a different data set under the .gz names
  EXPECT_EQ(datasets::MNIST(root()).size(), std::optional<size_t>(3));
}

TEST_F(Mnist, MissingFilesAreNamed) {
  const std::string images = (dir_ / "train-images-idx3-ubyte").string();
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime,
                     "MNIST: train-images-idx3-ubyte[.gz] not found in '" + root() + "' (looked for " + images +
                         " and " + images + ".gz)");
  plain("train-images-idx3-ubyte", idx_file<uint8_t>(0x08, {3, 2, 3}, pixels));
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime, (dir_ / "train-labels-idx1-ubyte.gz").string());
  EMBER_EXPECT_ERROR(datasets::MNIST(root(), Mode::kTest), Runtime, "t10k-images-idx3-ubyte[.gz] not found");
  EMBER_EXPECT_ERROR(datasets::MNIST((dir_ / "nowhere").string()), Runtime, "not found in");
}

TEST_F(Mnist, MismatchedOrMalformedFiles) {
  const std::string image_path = (dir_ / "train-images-idx3-ubyte").string();
  const std::string label_path = (dir_ / "train-labels-idx1-ubyte").string();
  // Counts differ.
  write_split("train", false, pixels, {1, 2});
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime,
                     "MNIST: 3 images in " + image_path + " but 2 labels in " + label_path);
  // Labels that are not a uint8 vector.
  plain("train-labels-idx1-ubyte", idx_file<int32_t>(0x0C, {3}, {1, 2, 3}));
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime,
                     label_path + ": expected uint8 labels of shape (N), got int32 of shape [3]");
  plain("train-labels-idx1-ubyte", idx_file<uint8_t>(0x08, {3, 1}, {1, 2, 3}));
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime, "got uint8 of shape [3, 1]");
  // Images that are not (N, H, W).
  plain("train-images-idx3-ubyte", idx_file<uint8_t>(0x08, {3, 6}, pixels));
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime,
                     image_path + ": expected uint8 images of shape (N, H, W), got uint8 of shape [3, 6]");
  // What the IDX reader rejects, with the file named.
  plain("train-images-idx3-ubyte", Bytes{0, 0, 8});
  EMBER_EXPECT_ERROR(datasets::MNIST(root()), Runtime, image_path);
}

TEST_F(Mnist, IndexOutOfRange) {
  write_split("train", false, pixels, labels);
  datasets::MNIST ds(root());
  EMBER_EXPECT_ERROR(ds.get(3), Index, "MNIST: index 3 is out of range for a data set of 3 examples");
}

TEST_F(Mnist, ThroughALoaderWithNormalizeAndStack) {
  write_split("train", true, pixels, labels);
  for (size_t workers : {0, 2}) {
    auto loader = make_data_loader<SequentialSampler>(
        datasets::MNIST(root()).map(transforms::Normalize<>(0.5, 0.25)).map(transforms::Stack<>()),
        DataLoaderOptions().batch_size(2).workers(workers));
    std::vector<Shape> shapes;
    std::vector<int64_t> targets;
    for (auto& batch : *loader) {
      shapes.push_back(vec(batch.data.sizes()));
      for (int64_t t : values<int64_t>(batch.target)) targets.push_back(t);
      EXPECT_EQ(batch.data.dtype(), kFloat32);
    }
    EXPECT_EQ(shapes, (std::vector<Shape>{{2, 1, 2, 3}, {1, 1, 2, 3}}));
    EXPECT_EQ(targets, (std::vector<int64_t>{7, 0, 9}));
  }
}

constexpr const char* kFashionMnist = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnist, RealTestSplit) {
  const std::string images = std::string(kFashionMnist) + "/t10k-images-idx3-ubyte.gz";
  if (!std::filesystem::exists(images))
    GTEST_SKIP() << images << " not installed (Debian's dataset-fashion-mnist; scripts/setup.sh installs it)";
  datasets::MNIST ds(kFashionMnist, Mode::kTest);
  ASSERT_EQ(ds.size(), std::optional<size_t>(10000));
  EXPECT_EQ(vec(ds.images().sizes()), (Shape{10000, 1, 28, 28}));
  // The first labels and the first image equal what NumPy reads from the file, / 255 in float32.
  EXPECT_EQ(values<int64_t>(ds.targets().narrow(0, 0, 20)), values<int64_t>(data_fixture("fashion_mnist/test_targets_head")));
  EXPECT_EQ(values<float>(ds.get(0).data), values<float>(data_fixture("fashion_mnist/test_image0")));
  const double mean = ds.images().to(kFloat64).mean().item<double>();
  EXPECT_NEAR(mean, data_fixture("fashion_mnist/test_mean").item<double>(), 1e-7);
  // Ten balanced classes.
  for (int64_t c = 0; c < 10; ++c) EXPECT_EQ(ds.targets().eq(c).sum().item<int64_t>(), 1000) << "class " << c;
  // Every image once through a loader with workers, in order.
  auto loader = make_data_loader<SequentialSampler>(std::move(ds).map(transforms::Stack<>()),
                                                    DataLoaderOptions().batch_size(1000).workers(2));
  int64_t seen = 0;
  for (auto& batch : *loader) {
    EXPECT_EQ(vec(batch.data.sizes()), (Shape{1000, 1, 28, 28}));
    seen += batch.target.size(0);
  }
  EXPECT_EQ(seen, 10000);
}

TEST(FashionMnist, RealTrainSplit) {
  const std::string images = std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz";
  if (!std::filesystem::exists(images))
    GTEST_SKIP() << images << " not installed (Debian's dataset-fashion-mnist; scripts/setup.sh installs it)";
  datasets::MNIST ds(kFashionMnist);
  EXPECT_EQ(ds.size(), std::optional<size_t>(60000));
  EXPECT_EQ(vec(ds.targets().sizes()), (Shape{60000}));
  EXPECT_LE(ds.images().max().item<float>(), 1.0f);
  EXPECT_GE(ds.images().min().item<float>(), 0.0f);
}

}  // namespace
