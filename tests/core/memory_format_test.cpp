// Memory formats read off sizes and strides (Note [memory formats]); expected strides are PyTorch 1.13's.
#include <gtest/gtest.h>

#include "TestSupport.h"

#include "ember/core/MemoryFormat.h"

namespace {

using namespace ember;
using V = std::vector<int64_t>;

V strides_of(V sizes, MemoryFormat f) {
  DimVector s = strides_for_memory_format(sizes, f);
  return V(s.begin(), s.end());
}

TEST(MemoryFormat, Strides) {
  EXPECT_EQ(strides_of({2, 3, 4, 5}, MemoryFormat::ChannelsLast), (V{60, 1, 15, 3}));
  EXPECT_EQ(strides_of({2, 0, 3, 4}, MemoryFormat::ChannelsLast), (V{0, 1, 0, 0}));
  EXPECT_EQ(strides_of({2, 3, 4, 5, 6}, MemoryFormat::ChannelsLast3d), (V{360, 1, 90, 18, 3}));
  EXPECT_EQ(strides_of({2, 0, 3}, MemoryFormat::Contiguous), (V{3, 3, 1}));
  EXPECT_THROW(strides_of({2, 3, 4}, MemoryFormat::ChannelsLast), Error);
  EXPECT_THROW(strides_of({2, 3, 4, 5}, MemoryFormat::ChannelsLast3d), Error);
  EXPECT_THROW(strides_of({2}, MemoryFormat::Preserve), Error);
}

TEST(MemoryFormat, ContiguityAndSuggestion) {
  const V cl{60, 1, 15, 3}, rm{60, 20, 5, 1};
  EXPECT_TRUE(is_contiguous_in({2, 3, 4, 5}, cl, MemoryFormat::ChannelsLast));
  EXPECT_FALSE(is_contiguous_in({2, 3, 4, 5}, cl, MemoryFormat::Contiguous));
  EXPECT_TRUE(is_contiguous_in({2, 3, 4, 5}, rm, MemoryFormat::Contiguous));
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5}, cl), MemoryFormat::ChannelsLast);
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5}, rm), MemoryFormat::Contiguous);
  // Both layouts at once (N,C,1,1): row-major wins for a row-major tensor; a channel-strided one is channels-last.
  EXPECT_EQ(suggest_memory_format({2, 3, 1, 1}, V{3, 1, 1, 1}), MemoryFormat::Contiguous);
  EXPECT_EQ(suggest_memory_format({2, 3, 1, 1}, V{3, 1, 3, 3}), MemoryFormat::ChannelsLast);
  // A stepped channels-last view keeps the order: still channels-last-like, no longer contiguous.
  EXPECT_EQ(suggest_memory_format({2, 3, 2, 5}, V{60, 1, 30, 3}), MemoryFormat::ChannelsLast);
  EXPECT_FALSE(is_contiguous_in({2, 3, 2, 5}, V{60, 1, 30, 3}, MemoryFormat::ChannelsLast));
}

TEST(MemoryFormat, DenseStrides) {
  EXPECT_TRUE(is_non_overlapping_and_dense({3, 4}, V{1, 3}));
  EXPECT_FALSE(is_non_overlapping_and_dense({3, 4}, V{8, 2}));
  EXPECT_FALSE(is_non_overlapping_and_dense({3, 4}, V{0, 1}));
  DimVector s = infer_dense_strides({2, 3, 2, 5}, V{60, 1, 30, 3});  // a stepped channels-last view
  EXPECT_EQ(V(s.begin(), s.end()), (V{30, 1, 15, 3}));
}

}  // namespace
