// Tests for the connection numbers both faces show (connection_numbering.h): MPA
// connections counted from 0 in the order they became MPA, whatever the library's ids.
#include "mpa/connection_numbering.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace mpa {
namespace {

TEST(ConnectionNumbering, NumbersConnectionsInTheOrderTheyBecameMpa) {
  ConnectionNumbering numbering;
  // Library ids count every TCP connection; 0, 1 and 3 never carried MPA, 7 became MPA
  // before 2 did.
  EXPECT_EQ(numbering.on_start(7), 0u);
  EXPECT_EQ(numbering.on_start(2), 1u);
  EXPECT_EQ(numbering.on_start(4), 2u);
  EXPECT_EQ(numbering.number(7), 0u);
  EXPECT_EQ(numbering.number(2), 1u);
  EXPECT_EQ(numbering.number(4), 2u);
  EXPECT_EQ(numbering.started(), 3u);
  EXPECT_EQ(numbering.on_start(2), 1u);  // told twice: the same number
  EXPECT_EQ(numbering.started(), 3u);
}

TEST(ConnectionNumbering, FindingsAboutTheCaptureKeepTheirId) {
  const ConnectionNumbering numbering;
  EXPECT_EQ(numbering.number(ConnectionNumbering::kCapture), ConnectionNumbering::kCapture);
}

TEST(ConnectionNumbering, AForgottenOrUnknownConnectionHasNoNumber) {
  ConnectionNumbering numbering;
  numbering.on_start(5);
  numbering.forget(5);
  EXPECT_THROW((void)numbering.number(5), std::out_of_range);
  EXPECT_THROW((void)numbering.number(6), std::out_of_range);
  EXPECT_EQ(numbering.on_start(6), 1u);  // numbers are never reused
}

}  // namespace
}  // namespace mpa
