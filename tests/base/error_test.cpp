// ember::Error: kinds map to Python exception types; messages are fmt-formatted, only on failure.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "ember/base/Error.h"

namespace {

using ember::ErrorKind;

template <class F>
ember::Error catch_error(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no ember::Error thrown";
  return ember::Error(ErrorKind::Runtime, "");
}

TEST(Error, CheckMacrosSetKindAndMessage) {
  auto e = catch_error([] { EMBER_CHECK(1 + 1 == 3, "add: got {} and {}", 1, "x"); });
  EXPECT_EQ(e.kind(), ErrorKind::Runtime);
  EXPECT_STREQ(e.what(), "add: got 1 and x");
  EXPECT_EQ(catch_error([] { EMBER_CHECK_INDEX(false, "index {} out of range", 5); }).kind(), ErrorKind::Index);
  EXPECT_EQ(catch_error([] { EMBER_CHECK_TYPE(false, "bad type"); }).kind(), ErrorKind::Type);
  EXPECT_EQ(catch_error([] { EMBER_CHECK_VALUE(false, "bad value"); }).kind(), ErrorKind::Value);
  auto f = catch_error([] { EMBER_FAIL("op: failed with {}", 2.5); });
  EXPECT_EQ(f.kind(), ErrorKind::Runtime);
  EXPECT_STREQ(f.what(), "op: failed with 2.5");
  auto g = catch_error([] { EMBER_FAIL_KIND(ErrorKind::NotImplemented, "{} not implemented", "foo"); });
  EXPECT_EQ(g.kind(), ErrorKind::NotImplemented);
  EXPECT_STREQ(g.what(), "foo not implemented");
  EXPECT_EQ(catch_error([] { EMBER_CHECK_INDEX(false, "{}", std::vector<int>{1, 2}); }).what(), std::string("[1, 2]"));
}

TEST(Error, PassingCheckDoesNotFormatOrThrow) {
  int formatted = 0;
  auto arg = [&] {
    ++formatted;
    return 1;
  };
  int evaluated = 0;
  EXPECT_NO_THROW(EMBER_CHECK((++evaluated, true), "never {}", arg()));
  EXPECT_EQ(evaluated, 1);  // the condition runs exactly once
  EXPECT_EQ(formatted, 0);  // message arguments are not evaluated on success
}

TEST(Error, IsARuntimeError) {
  try {
    EMBER_CHECK(false, "boom");
    FAIL() << "not thrown";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom");
  }
}

}  // namespace
