#include "server/auth/scram.h"

#include <gtest/gtest.h>

namespace farmdb::server {
namespace {

// RFC 7677 §3: user "user", password "pencil".
constexpr const char* kSalt = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr const char* kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramVerifier PencilVerifier() { return MakeScramVerifier("pencil", *Base64Decode(kSalt)); }

TEST(ScramTest, Rfc7677TestVector) {
  ScramExchange exchange(PencilVerifier(), kServerNonce, false);
  auto first = exchange.ClientFirst(kClientFirst);
  ASSERT_TRUE(first) << first.error().detail;
  EXPECT_EQ(*first, kServerFirst);
  auto final_message = exchange.ClientFinal(kClientFinal);
  ASSERT_TRUE(final_message) << final_message.error().detail;
  EXPECT_EQ(*final_message, kServerFinal);
}

TEST(ScramTest, WrongPasswordFailsAtTheProof) {
  ScramExchange exchange(MakeScramVerifier("pencil2", *Base64Decode(kSalt)), kServerNonce, false);
  ASSERT_TRUE(exchange.ClientFirst(kClientFirst));
  auto result = exchange.ClientFinal(kClientFinal);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ScramFailure::Kind::kWrongProof);
}

TEST(ScramTest, MockExchangeAlwaysFails) {
  ScramExchange exchange(PencilVerifier(), kServerNonce, true);
  ASSERT_TRUE(exchange.ClientFirst(kClientFirst));
  auto result = exchange.ClientFinal(kClientFinal);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ScramFailure::Kind::kWrongProof);
}

TEST(ScramTest, MalformedMessages) {
  for (const char* first : {"", "p=tls-server-end-point,,n=user,r=abc", "n,a=admin,n=user,r=abc",
                            "x,,n=user,r=abc", "n,,r=abc", "n,,n=user", "n,,n=user,r=",
                            "n,,m=ext,n=user,r=abc"}) {
    ScramExchange exchange(PencilVerifier(), kServerNonce, false);
    auto r = exchange.ClientFirst(first);
    ASSERT_FALSE(r) << first;
    EXPECT_EQ(r.error().kind, ScramFailure::Kind::kMalformed) << first;
  }
  std::string nonce = "rOprNGfwEbeRWgbNEkqO" + std::string(kServerNonce);
  for (std::string final_message :
       {std::string("c=eSws,r=") + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        std::string("c=biws,r=wrongnonce,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="),
        std::string("c=biws,r=") + nonce, std::string("c=biws,r=") + nonce + ",p=!!!!",
        std::string("c=biws,r=") + nonce + ",p=AAAA", std::string("r=") + nonce}) {
    ScramExchange exchange(PencilVerifier(), kServerNonce, false);
    ASSERT_TRUE(exchange.ClientFirst(kClientFirst));
    auto r = exchange.ClientFinal(final_message);
    ASSERT_FALSE(r) << final_message;
    EXPECT_EQ(r.error().kind, ScramFailure::Kind::kMalformed) << final_message;
  }
  ScramExchange fresh(PencilVerifier(), kServerNonce, false);
  EXPECT_FALSE(fresh.ClientFinal(kClientFinal));  // no client-first yet
}

// Expected values computed by PostgreSQL 15: with password_encryption = md5,
// CREATE ROLE pgtest PASSWORD 'secret' stores md57df4a5b3eac2af7365de3529200bb8e9, and
// 'md5' || md5('7df4a5b3eac2af7365de3529200bb8e9' || '\x01020304'::bytea) is the response.
TEST(Md5Test, MatchesPostgreSql) {
  std::string hash = Md5PasswordHash("pgtest", "secret");
  EXPECT_EQ(hash, "md57df4a5b3eac2af7365de3529200bb8e9");
  EXPECT_EQ(Md5Response(hash, std::string("\1\2\3\4", 4)), "md5c784697f6c9942bf86d2868fab87b16c");
}

TEST(SecretsTest, PlaintextCheckAgainstEitherSecret) {
  RoleSecret md5{Md5PasswordHash("u", "pw"), std::nullopt};
  RoleSecret scram{std::nullopt, MakeScramVerifier("pw", RandomBytes(kScramSaltLength))};
  EXPECT_TRUE(CheckPlaintext(md5, "u", "pw"));
  EXPECT_FALSE(CheckPlaintext(md5, "u", "px"));
  EXPECT_TRUE(CheckPlaintext(scram, "u", "pw"));
  EXPECT_FALSE(CheckPlaintext(scram, "u", "px"));
  EXPECT_FALSE(CheckPlaintext(RoleSecret{}, "u", "pw"));
}

TEST(SecretsTest, Base64) {
  EXPECT_EQ(Base64Encode("n,,"), "biws");
  EXPECT_EQ(*Base64Decode("biws"), "n,,");
  EXPECT_EQ(*Base64Decode("YQ=="), "a");
  EXPECT_EQ(*Base64Decode("YWI="), "ab");
  EXPECT_FALSE(Base64Decode("YQ="));
  EXPECT_FALSE(Base64Decode("Y!=="));
}

}  // namespace
}  // namespace farmdb::server
