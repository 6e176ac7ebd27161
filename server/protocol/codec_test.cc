#include "server/protocol/codec.h"

#include <gtest/gtest.h>

#include "server/protocol/backend.h"

namespace farmdb::server {
namespace {

std::string Encoded(const FrontendMessage& m) {
  std::string out;
  EncodeMessage(m, out);
  return out;
}

// Decodes a complete typed message (header included) the way a connection does.
Expected<FrontendMessage, ProtocolError> DecodeFull(std::string_view bytes,
                                                    Phase phase = Phase::kReady,
                                                    uint32_t max = 64u << 20) {
  if (bytes.size() < 5) return Unexpected(ProtocolError{"08P01", "short"});
  auto body_length = CheckMessageHeader(bytes[0], GetInt32(bytes, 1), phase, max);
  if (!body_length) return Unexpected(body_length.error());
  if (bytes.size() - 5 != *body_length) return Unexpected(ProtocolError{"08P01", "size"});
  return DecodeMessage(bytes[0], bytes.substr(5));
}

std::string Raw(char type, std::string_view body) {
  std::string out(1, type);
  PutInt32(out, static_cast<int32_t>(body.size() + 4));
  out.append(body);
  return out;
}

TEST(CodecTest, RoundTripsEveryFrontendMessage) {
  Bind bind{"p1", "s1", {0, 1}, {std::string_view("42"), std::nullopt}, {1}};
  std::vector<FrontendMessage> messages = {
      Query{"SELECT 1"},
      Parse{"s1", "SELECT $1, $2", {23, 0}},
      bind,
      Describe{'S', "s1"},
      Describe{'P', ""},
      Execute{"p1", 10},
      Close{'P', "p1"},
      Sync{},
      Flush{},
      Terminate{},
      CopyData{std::string("a\0b\n", 4)},
      CopyDone{},
      CopyFail{"boom"},
      FunctionCall{std::string("\0\0\0\1", 4)},
  };
  for (const auto& m : messages) {
    std::string bytes = Encoded(m);
    auto decoded = DecodeFull(bytes);
    ASSERT_TRUE(decoded) << MessageType(m) << ": " << decoded.error().message;
    EXPECT_EQ(decoded->index(), m.index());
    EXPECT_EQ(Encoded(*decoded), bytes) << MessageType(m);
  }
  std::string bind_bytes = Encoded(bind);  // the decoded values are views into it
  auto decoded = DecodeFull(bind_bytes);
  const auto& b = std::get<Bind>(*decoded);
  EXPECT_EQ(b.portal, "p1");
  EXPECT_EQ(b.statement, "s1");
  ASSERT_EQ(b.values.size(), 2u);
  EXPECT_EQ(*b.values[0], "42");
  EXPECT_FALSE(b.values[1].has_value());
  EXPECT_EQ(b.result_formats, std::vector<int16_t>{1});
}

TEST(CodecTest, PasswordOnlyWhileAuthenticating) {
  std::string p = Encoded(PasswordMessage{std::string("secret\0", 7)});
  ASSERT_TRUE(DecodeFull(p, Phase::kAuthenticating));
  EXPECT_EQ(DecodeFull(p, Phase::kReady).error().message, "invalid frontend message type 112");
  auto q = DecodeFull(Encoded(Query{"x"}), Phase::kAuthenticating);
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().sqlstate, "08P01");
  EXPECT_EQ(q.error().message, "expected password response, got message type 81");
}

TEST(CodecTest, StartupPacketsRoundTrip) {
  std::vector<StartupPacket> packets = {
      StartupMessage{3, 0, {{"user", "alice"}, {"database", "app"}, {"options", ""}}},
      StartupMessage{3, 2, {}},
      SslRequest{},
      GssEncRequest{},
      CancelRequest{17, -5},
  };
  for (const auto& p : packets) {
    std::string bytes;
    EncodeStartupPacket(p, bytes);
    auto body_length = CheckStartupLength(GetInt32(bytes, 0));
    ASSERT_TRUE(body_length);
    ASSERT_EQ(*body_length, bytes.size() - 4);
    auto decoded = DecodeStartupPacket(std::string_view(bytes).substr(4));
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->index(), p.index());
    std::string again;
    EncodeStartupPacket(*decoded, again);
    EXPECT_EQ(again, bytes);
  }
  auto cancel = DecodeStartupPacket(std::string("\x04\xd2\x16\x2e\0\0\0\x11\xff\xff\xff\xfb", 12));
  ASSERT_TRUE(cancel);
  EXPECT_EQ(std::get<CancelRequest>(*cancel).pid, 17);
  EXPECT_EQ(std::get<CancelRequest>(*cancel).secret, -5);
}

TEST(CodecTest, MalformedStartupPackets) {
  EXPECT_FALSE(CheckStartupLength(3));
  EXPECT_FALSE(CheckStartupLength(7));
  EXPECT_FALSE(CheckStartupLength(-1));
  EXPECT_FALSE(CheckStartupLength(10001));
  EXPECT_TRUE(CheckStartupLength(10000));
  auto v3 = std::string("\0\3\0\0", 4);
  // Missing terminator, value without NUL, trailing bytes after the terminator.
  for (std::string body : {v3 + std::string("user\0bob\0", 9), v3 + std::string("user\0bob", 8),
                           v3 + std::string("user\0bob\0\0x", 11), v3 + std::string("user", 4),
                           std::string("\0\3", 2)}) {
    auto decoded = DecodeStartupPacket(body);
    ASSERT_FALSE(decoded) << body.size();
    EXPECT_EQ(decoded.error().sqlstate, "08P01");
  }
  // SSLRequest and CancelRequest with the wrong size.
  EXPECT_FALSE(DecodeStartupPacket(std::string("\x04\xd2\x16\x2f\0", 5)));
  EXPECT_FALSE(DecodeStartupPacket(std::string("\x04\xd2\x16\x2e\0\0\0\1", 8)));
  EXPECT_FALSE(DecodeStartupPacket(std::string("\x04\xd2\x16\x2e\0\0\0\1\0\0\0\2\0", 13)));
  // Version numbers are decoded even when unsupported; the connection rejects them.
  auto v2 = DecodeStartupPacket(std::string("\0\2\0\0\0", 5));
  ASSERT_TRUE(v2);
  EXPECT_EQ(std::get<StartupMessage>(*v2).major, 2);
}

TEST(CodecTest, HeaderLimitsAreCheckedBeforeTheBody) {
  // Unknown types, including NUL and 'p' outside authentication.
  for (char type : {'Z', '\0', '\xff', 'p', 'A'}) {
    auto r = CheckMessageHeader(type, 4, Phase::kReady, 1 << 20);
    ASSERT_FALSE(r) << static_cast<int>(type);
    EXPECT_EQ(r.error().sqlstate, "08P01");
    EXPECT_TRUE(r.error().message.starts_with("invalid frontend message type"));
  }
  // Lengths below 4 or above the limit.
  EXPECT_EQ(CheckMessageHeader('Q', 3, Phase::kReady, 1 << 20).error().message,
            "invalid message length");
  EXPECT_FALSE(CheckMessageHeader('Q', -1, Phase::kReady, 1 << 20));
  EXPECT_FALSE(CheckMessageHeader('Q', (1 << 20) + 1, Phase::kReady, 1 << 20));
  EXPECT_EQ(*CheckMessageHeader('Q', 1 << 20, Phase::kReady, 1 << 20), (1u << 20) - 4);
  // Sync, Flush, Terminate, Describe, Execute, Close, CopyDone: the small limit.
  for (char type : {'S', 'H', 'X', 'D', 'E', 'C', 'c'}) {
    EXPECT_FALSE(CheckMessageHeader(type, kSmallMessageLimit + 1, Phase::kReady, 1 << 30)) << type;
    EXPECT_TRUE(CheckMessageHeader(type, kSmallMessageLimit, Phase::kReady, 1 << 30)) << type;
  }
  EXPECT_FALSE(CheckMessageHeader('p', kMaxAuthMessage + 1, Phase::kAuthenticating, 1 << 30));
}

TEST(CodecTest, MalformedBodies) {
  struct Case {
    char type;
    std::string body;
    std::string message;
  };
  std::vector<Case> cases = {
      {'Q', "no terminator", "invalid string in message"},
      {'Q', std::string("a\0b", 3), "invalid message format"},
      {'S', "x", "invalid message format"},
      {'X', std::string("\0", 1), "invalid message format"},
      {'P', std::string("s\0q\0", 4), "invalid message format"},                  // no count
      {'P', std::string("s\0q\0\0\2\0\0\0\x17", 10), "invalid message format"},  // 1 of 2 oids
      {'B', std::string("p\0s\0\0\2\0\0\0\0\0\0", 12),
       "bind message has 2 parameter formats but 0 parameters"},
      {'B', std::string("p\0s\0\0\0\0\1\0\0\0\5ab", 14), "insufficient data left in message"},
      {'B', std::string("p\0s\0\0\0\0\1\xff\xff\xff\xfe\0\0", 14), "invalid message format"},
      {'B', std::string("p\0s\0\0\0\0\0", 8), "invalid message format"},  // no result formats
      {'D', std::string("X\0", 2), "invalid DESCRIBE message subtype 88"},
      {'C', std::string("Q\0", 2), "invalid CLOSE message subtype 81"},
      {'D', "S", "invalid string in message"},
      {'E', std::string("p\0\0\0", 4), "invalid message format"},
      {'f', "oops", "invalid string in message"},
  };
  for (const auto& c : cases) {
    auto r = DecodeMessage(c.type, c.body);
    ASSERT_FALSE(r) << c.type << " " << c.message;
    EXPECT_EQ(r.error().sqlstate, "08P01");
    EXPECT_EQ(r.error().message, c.message) << c.type;
    if (c.type == 'B') {  // the connection's decoder of Binds answers alike
      Bind bind;
      auto violation = DecodeBind(c.body, bind);
      ASSERT_TRUE(violation) << c.message;
      EXPECT_EQ(violation->sqlstate, "08P01");
      EXPECT_EQ(violation->message, c.message);
    }
  }
}

TEST(CodecTest, DecodeBindReplacesEverythingTheReusedBindHeld) {
  std::string full = Encoded(Bind{"p1", "s1", {1, 0}, {std::string_view("42"), std::nullopt}, {1}});
  std::string bare = Encoded(Bind{"", "s2", {}, {}, {}});
  Bind bind;
  ASSERT_FALSE(DecodeBind(std::string_view(full).substr(5), bind));
  EXPECT_EQ(bind.portal, "p1");
  EXPECT_EQ(bind.param_formats, (std::vector<int16_t>{1, 0}));
  ASSERT_EQ(bind.values.size(), 2u);
  EXPECT_EQ(*bind.values[0], "42");
  EXPECT_EQ(bind.result_formats, std::vector<int16_t>{1});
  ASSERT_FALSE(DecodeBind(std::string_view(bare).substr(5), bind));
  EXPECT_EQ(bind.portal, "");
  EXPECT_EQ(bind.statement, "s2");
  EXPECT_TRUE(bind.param_formats.empty());
  EXPECT_TRUE(bind.values.empty());
  EXPECT_TRUE(bind.result_formats.empty());
  // Trailing bytes, as DecodeMessage rejects them.
  std::string trailing = bare.substr(5) + "x";
  auto violation = DecodeBind(trailing, bind);
  ASSERT_TRUE(violation);
  EXPECT_EQ(violation->message, "invalid message format");
}

TEST(CodecTest, PasswordPayloads) {
  EXPECT_EQ(*DecodePassword(std::string("pw\0", 3)), "pw");
  EXPECT_FALSE(DecodePassword("pw"));
  EXPECT_FALSE(DecodePassword(std::string("pw\0x", 4)));
  auto sasl = DecodeSaslInitialResponse(std::string("SCRAM-SHA-256\0\0\0\0\3abc", 21));
  ASSERT_TRUE(sasl);
  EXPECT_EQ(sasl->mechanism, "SCRAM-SHA-256");
  EXPECT_EQ(*sasl->data, "abc");
  auto none = DecodeSaslInitialResponse(std::string("M\0\xff\xff\xff\xff", 6));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->data);
  EXPECT_FALSE(DecodeSaslInitialResponse(std::string("M\0\0\0\0\4abc", 9)));
  EXPECT_FALSE(DecodeSaslInitialResponse(std::string("M\0\0\0\0\1ab", 8)));
  EXPECT_FALSE(DecodeSaslInitialResponse("M"));
}

TEST(BackendTest, EncodesErrorFieldsAndRows) {
  sql::Error e;
  e.sqlstate = "42601";
  e.message = "syntax error";
  e.hint = "try again";
  e.position = 7;
  std::string out;
  PutError(out, e);
  EXPECT_EQ(out, Raw('E', std::string("SERROR\0VERROR\0C42601\0Msyntax error\0Htry again\0P7\0\0",
                                      50)));
  out.clear();
  sql::WireValue values[] = {std::string_view("ab"), std::nullopt};
  PutDataRow(out, values);
  EXPECT_EQ(out, Raw('D', std::string("\0\2\0\0\0\2ab\xff\xff\xff\xff", 12)));
  out.clear();
  PutReadyForQuery(out, sql::TxnStatus::kInBlock);
  EXPECT_EQ(out, Raw('Z', "T"));
  out.clear();
  PutNegotiateProtocolVersion(out, 0, {"_pq_.x"});
  EXPECT_EQ(out, Raw('v', std::string("\0\3\0\0\0\0\0\1_pq_.x\0", 15)));
  out.clear();
  sql::Column column;
  column.name = "a";
  column.type_oid = 23;
  column.type_size = 4;
  PutRowDescription(out, {&column, 1});
  EXPECT_EQ(out, Raw('T', std::string("\0\1a\0\0\0\0\0\0\0\0\0\0\x17\0\4\xff\xff\xff\xff\0\0", 22)));
}

}  // namespace
}  // namespace farmdb::server
