// Device: parsing of "cpu", "cpu:0", "cuda:1" and the errors for malformed strings.
#include <gtest/gtest.h>

#include "ember/core/Device.h"

namespace {

using ember::Device;
using ember::DeviceType;

TEST(Device, Parse) {
  Device a("cpu");
  EXPECT_EQ(a.type(), DeviceType::CPU);
  EXPECT_EQ(a.index(), -1);
  EXPECT_TRUE(a.is_cpu());
  EXPECT_EQ(a, ember::kCPU);
  Device b("cpu:0");
  EXPECT_EQ(b.index(), 0);
  EXPECT_NE(b, ember::kCPU);
  Device c("cuda:1");
  EXPECT_EQ(c.type(), DeviceType::CUDA);
  EXPECT_EQ(c.index(), 1);
  EXPECT_FALSE(c.is_cpu());
  EXPECT_EQ(Device("cuda:127").index(), 127);
}

TEST(Device, StrRoundTrips) {
  for (const char* s : {"cpu", "cpu:0", "cuda", "cuda:3"}) {
    EXPECT_EQ(Device(s).str(), s);
    EXPECT_EQ(Device(Device(s).str()), Device(s));
  }
}

TEST(Device, MalformedStringsRaise) {
  for (const char* s :
       {"gpu", "", "CPU", "cpu:", "cpu:x", "cpu:-1", "cpu:0x", "cpu:1:2", "cuda:128", " cpu", "cpu:01a"}) {
    try {
      Device d{std::string_view(s)};
      ADD_FAILURE() << "accepted '" << s << "' as " << d.str();
    } catch (const ember::Error& e) {
      EXPECT_EQ(e.kind(), ember::ErrorKind::Runtime);
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
    }
  }
}

}  // namespace
