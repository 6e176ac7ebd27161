#include "server/protocol/codec.h"

#include <cstring>
#include <optional>
#include <type_traits>

namespace farmdb::server {
namespace {

ProtocolError Malformed(std::string message) { return ProtocolError{"08P01", std::move(message)}; }
Unexpected<ProtocolError> Violation(std::string message) {
  return Unexpected(Malformed(std::move(message)));
}

// Cursor over a message body; every getter fails (nullopt) rather than read past the end.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : rest_(body) {}

  std::optional<uint32_t> UInt32() {
    if (rest_.size() < 4) return std::nullopt;
    auto v = static_cast<uint32_t>(GetInt32(rest_, 0));
    rest_.remove_prefix(4);
    return v;
  }
  std::optional<uint16_t> UInt16() {
    if (rest_.size() < 2) return std::nullopt;
    const auto* p = reinterpret_cast<const unsigned char*>(rest_.data());
    uint16_t v = static_cast<uint16_t>((p[0] << 8) | p[1]);
    rest_.remove_prefix(2);
    return v;
  }
  std::optional<std::string> String() {  // NUL-terminated
    size_t end = rest_.find('\0');
    if (end == std::string_view::npos) return std::nullopt;
    std::string s(rest_.substr(0, end));
    rest_.remove_prefix(end + 1);
    return s;
  }
  std::optional<std::string_view> Name() {  // NUL-terminated, a view into the body
    size_t end = rest_.find('\0');
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view name = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
    return name;
  }
  std::optional<std::string> Bytes(size_t n) {
    if (rest_.size() < n) return std::nullopt;
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }
  std::optional<std::string_view> View(size_t n) {  // into the body, not a copy
    if (rest_.size() < n) return std::nullopt;
    std::string_view v = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return v;
  }
  std::optional<char> Byte() {
    if (rest_.empty()) return std::nullopt;
    char c = rest_.front();
    rest_.remove_prefix(1);
    return c;
  }
  std::string Rest() {
    std::string s(rest_);
    rest_ = {};
    return s;
  }
  bool AtEnd() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// Decoding helpers that turn a missing field into the one error postgres.c reports for it.
constexpr const char* kBadFormat = "invalid message format";
constexpr const char* kBadString = "invalid string in message";

// Into `bind`, clearing its vectors but keeping their capacity; the violation, if any.
std::optional<ProtocolError> DecodeBind(BodyReader& r, Bind& bind) {
  bind.param_formats.clear();
  bind.values.clear();
  bind.result_formats.clear();
  auto portal = r.Name();
  auto statement = portal ? r.Name() : std::nullopt;
  if (!statement) return Malformed(kBadString);
  bind.portal = *portal;
  bind.statement = *statement;
  auto nformats = r.UInt16();
  if (!nformats) return Malformed(kBadFormat);
  for (uint16_t i = 0; i < *nformats; ++i) {
    auto f = r.UInt16();
    if (!f) return Malformed(kBadFormat);
    bind.param_formats.push_back(static_cast<int16_t>(*f));
  }
  auto nvalues = r.UInt16();
  if (!nvalues) return Malformed(kBadFormat);
  if (*nformats > 1 && *nformats != *nvalues) {
    return Malformed("bind message has " + std::to_string(*nformats) + " parameter formats but " +
                     std::to_string(*nvalues) + " parameters");
  }
  for (uint16_t i = 0; i < *nvalues; ++i) {
    auto len = r.UInt32();
    if (!len) return Malformed(kBadFormat);
    auto slen = static_cast<int32_t>(*len);
    if (slen == -1) {
      bind.values.emplace_back(std::nullopt);
      continue;
    }
    if (slen < 0) return Malformed(kBadFormat);
    auto bytes = r.View(static_cast<size_t>(slen));
    if (!bytes) return Malformed("insufficient data left in message");
    bind.values.emplace_back(*bytes);
  }
  auto nresults = r.UInt16();
  if (!nresults) return Malformed(kBadFormat);
  for (uint16_t i = 0; i < *nresults; ++i) {
    auto f = r.UInt16();
    if (!f) return Malformed(kBadFormat);
    bind.result_formats.push_back(static_cast<int16_t>(*f));
  }
  return std::nullopt;
}

Expected<FrontendMessage, ProtocolError> DecodeBody(char type, BodyReader& r) {
  switch (type) {
    case 'Q': {
      auto text = r.String();
      if (!text) return Violation(kBadString);
      return Query{std::move(*text)};
    }
    case 'P': {
      Parse parse;
      auto name = r.String();
      auto query = name ? r.String() : std::nullopt;
      if (!query) return Violation(kBadString);
      parse.name = std::move(*name);
      parse.query = std::move(*query);
      auto n = r.UInt16();
      if (!n) return Violation(kBadFormat);
      for (uint16_t i = 0; i < *n; ++i) {
        auto oid = r.UInt32();
        if (!oid) return Violation(kBadFormat);
        parse.param_types.push_back(*oid);
      }
      return parse;
    }
    case 'B': {
      Bind bind;
      if (auto violation = DecodeBind(r, bind)) return Unexpected(std::move(*violation));
      return bind;
    }
    case 'D':
    case 'C': {
      auto kind = r.Byte();
      auto name = kind ? r.Name() : std::nullopt;
      if (!name) return Violation(kBadString);
      if (*kind != 'S' && *kind != 'P') {
        return Violation(std::string("invalid ") + (type == 'D' ? "DESCRIBE" : "CLOSE") +
                         " message subtype " + std::to_string(static_cast<unsigned char>(*kind)));
      }
      if (type == 'D') return Describe{*kind, *name};
      return Close{*kind, *name};
    }
    case 'E': {
      auto portal = r.Name();
      if (!portal) return Violation(kBadString);
      auto max_rows = r.UInt32();
      if (!max_rows) return Violation(kBadFormat);
      return Execute{*portal, static_cast<int32_t>(*max_rows)};
    }
    case 'S':
      return Sync{};
    case 'H':
      return Flush{};
    case 'X':
      return Terminate{};
    case 'd':
      return CopyData{r.Rest()};
    case 'c':
      return CopyDone{};
    case 'f': {
      auto message = r.String();
      if (!message) return Violation(kBadString);
      return CopyFail{std::move(*message)};
    }
    case 'p':
      return PasswordMessage{r.Rest()};
    case 'F':
      return FunctionCall{r.Rest()};
    default:
      return Violation("invalid frontend message type " +
                       std::to_string(static_cast<unsigned char>(type)));
  }
}

bool IsKnownType(char type) {
  switch (type) {
    case 'Q': case 'P': case 'B': case 'D': case 'E': case 'C': case 'S':
    case 'H': case 'X': case 'd': case 'c': case 'f': case 'p': case 'F':
      return true;
    default:
      return false;
  }
}

// Types whose body never carries user data get postgres.c's small limit.
bool IsSmallType(char type) {
  switch (type) {
    case 'D': case 'E': case 'C': case 'S': case 'H': case 'X': case 'c':
      return true;
    default:
      return false;
  }
}

}  // namespace

size_t BeginMessage(std::string& out, char type) {
  out.push_back(type);
  size_t at = out.size();
  PutInt32(out, 0);
  return at;
}

void EndMessage(std::string& out, size_t length_at) {
  StoreInt32(out.data() + length_at, static_cast<int32_t>(out.size() - length_at));
}

Expected<uint32_t, ProtocolError> CheckStartupLength(int32_t length) {
  if (length < 8 || static_cast<uint32_t>(length) > kMaxStartupPacket) {
    return Violation("invalid length of startup packet");
  }
  return static_cast<uint32_t>(length) - 4;
}

Expected<uint32_t, ProtocolError> CheckMessageHeader(char type, int32_t length, Phase phase,
                                                     uint32_t max_message_size) {
  if (phase == Phase::kAuthenticating && type != 'p') {
    return Violation("expected password response, got message type " +
                     std::to_string(static_cast<unsigned char>(type)));
  }
  if (phase == Phase::kReady && (type == 'p' || !IsKnownType(type))) {
    return Violation("invalid frontend message type " +
                     std::to_string(static_cast<unsigned char>(type)));
  }
  uint32_t limit = phase == Phase::kAuthenticating ? kMaxAuthMessage
                   : IsSmallType(type)             ? kSmallMessageLimit
                                                   : max_message_size;
  if (length < 4 || static_cast<uint32_t>(length) > limit) {
    return Violation("invalid message length");
  }
  return static_cast<uint32_t>(length) - 4;
}

Expected<StartupPacket, ProtocolError> DecodeStartupPacket(std::string_view body) {
  BodyReader r(body);
  auto code = r.UInt32();
  if (!code) return Violation("invalid length of startup packet");
  if (*code == kSslRequestCode || *code == kGssEncRequestCode || *code == kCancelRequestCode) {
    if (*code != kCancelRequestCode) {
      if (!r.AtEnd()) return Violation("invalid length of startup packet");
      if (*code == kSslRequestCode) return SslRequest{};
      return GssEncRequest{};
    }
    auto pid = r.UInt32();
    auto secret = pid ? r.UInt32() : std::nullopt;
    if (!secret || !r.AtEnd()) return Violation("invalid length of cancel request packet");
    return CancelRequest{static_cast<int32_t>(*pid), static_cast<int32_t>(*secret)};
  }
  StartupMessage startup;
  startup.major = static_cast<uint16_t>(*code >> 16);
  startup.minor = static_cast<uint16_t>(*code & 0xffff);
  // The parameter list: name/value pairs, ended by an empty name that must be the last byte.
  while (true) {
    auto name = r.String();
    if (!name) return Violation("invalid startup packet layout: expected terminator as last byte");
    if (name->empty()) break;
    auto value = r.String();
    if (!value) return Violation("invalid startup packet layout: expected terminator as last byte");
    startup.parameters.emplace_back(std::move(*name), std::move(*value));
  }
  if (!r.AtEnd()) return Violation("invalid startup packet layout: expected terminator as last byte");
  return startup;
}

Expected<FrontendMessage, ProtocolError> DecodeMessage(char type, std::string_view body) {
  BodyReader r(body);
  auto message = DecodeBody(type, r);
  if (message && !r.AtEnd()) return Violation(kBadFormat);
  return message;
}

std::optional<ProtocolError> DecodeBind(std::string_view body, Bind& bind) {
  BodyReader r(body);
  auto violation = DecodeBind(r, bind);
  if (!violation && !r.AtEnd()) return Malformed(kBadFormat);
  return violation;
}

Expected<std::string, ProtocolError> DecodePassword(std::string_view payload) {
  BodyReader r(payload);
  auto password = r.String();
  if (!password || !r.AtEnd()) return Violation(kBadFormat);
  return std::move(*password);
}

Expected<SaslInitialResponse, ProtocolError> DecodeSaslInitialResponse(std::string_view payload) {
  BodyReader r(payload);
  SaslInitialResponse response;
  auto mechanism = r.String();
  auto len = mechanism ? r.UInt32() : std::nullopt;
  if (!len) return Violation(kBadFormat);
  response.mechanism = std::move(*mechanism);
  if (static_cast<int32_t>(*len) != -1) {
    auto data = static_cast<int32_t>(*len) >= 0 ? r.Bytes(*len) : std::nullopt;
    if (!data) return Violation(kBadFormat);
    response.data = std::move(*data);
  }
  if (!r.AtEnd()) return Violation(kBadFormat);
  return response;
}

void EncodeStartupPacket(const StartupPacket& packet, std::string& out) {
  size_t at = out.size();
  PutInt32(out, 0);
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, StartupMessage>) {
          PutInt32(out, static_cast<int32_t>((uint32_t{p.major} << 16) | p.minor));
          for (const auto& [name, value] : p.parameters) {
            PutString(out, name);
            PutString(out, value);
          }
          out.push_back('\0');
        } else if constexpr (std::is_same_v<T, SslRequest>) {
          PutInt32(out, static_cast<int32_t>(kSslRequestCode));
        } else if constexpr (std::is_same_v<T, GssEncRequest>) {
          PutInt32(out, static_cast<int32_t>(kGssEncRequestCode));
        } else {
          PutInt32(out, static_cast<int32_t>(kCancelRequestCode));
          PutInt32(out, p.pid);
          PutInt32(out, p.secret);
        }
      },
      packet);
  auto len = static_cast<uint32_t>(out.size() - at);
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>(len >> (24 - 8 * i));
}

char MessageType(const FrontendMessage& message) {
  static constexpr char kTypes[] = {'Q', 'P', 'B', 'D', 'E', 'C', 'S',
                                    'H', 'X', 'd', 'c', 'f', 'p', 'F'};
  static_assert(sizeof(kTypes) == std::variant_size_v<FrontendMessage>);
  return kTypes[message.index()];
}

void EncodeMessage(const FrontendMessage& message, std::string& out) {
  size_t at = BeginMessage(out, MessageType(message));
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, Query>) {
          PutString(out, m.text);
        } else if constexpr (std::is_same_v<T, Parse>) {
          PutString(out, m.name);
          PutString(out, m.query);
          PutInt16(out, static_cast<int16_t>(m.param_types.size()));
          for (uint32_t oid : m.param_types) PutInt32(out, static_cast<int32_t>(oid));
        } else if constexpr (std::is_same_v<T, Bind>) {
          PutString(out, m.portal);
          PutString(out, m.statement);
          PutInt16(out, static_cast<int16_t>(m.param_formats.size()));
          for (int16_t f : m.param_formats) PutInt16(out, f);
          PutInt16(out, static_cast<int16_t>(m.values.size()));
          for (const auto& v : m.values) {
            PutInt32(out, v ? static_cast<int32_t>(v->size()) : -1);
            if (v) out.append(*v);
          }
          PutInt16(out, static_cast<int16_t>(m.result_formats.size()));
          for (int16_t f : m.result_formats) PutInt16(out, f);
        } else if constexpr (std::is_same_v<T, Describe> || std::is_same_v<T, Close>) {
          out.push_back(m.kind);
          PutString(out, m.name);
        } else if constexpr (std::is_same_v<T, Execute>) {
          PutString(out, m.portal);
          PutInt32(out, m.max_rows);
        } else if constexpr (std::is_same_v<T, CopyData>) {
          out.append(m.data);
        } else if constexpr (std::is_same_v<T, CopyFail>) {
          PutString(out, m.message);
        } else if constexpr (std::is_same_v<T, PasswordMessage>) {
          out.append(m.payload);
        } else if constexpr (std::is_same_v<T, FunctionCall>) {
          out.append(m.body);
        }
      },
      message);
  EndMessage(out, at);
}

}  // namespace farmdb::server
