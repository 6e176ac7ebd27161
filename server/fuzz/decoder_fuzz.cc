// libFuzzer target for the pure protocol codec (server/protocol/codec.h).
//
// Input byte 0 picks what the rest is: a startup packet body, a typed message (byte 1 is the
// type) in either connection phase, or a 'p' payload as a password / SASLInitialResponse. Every
// successful decode is re-encoded and must give back the same bytes (the decoders are strict, so
// decode . encode is the identity on accepted input); a mismatch traps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/protocol/codec.h"

namespace {

using namespace farmdb::server;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void FuzzStartup(std::string_view body) {
  auto packet = DecodeStartupPacket(body);
  if (!packet) {
    Check(packet.error().sqlstate == "08P01" && !packet.error().message.empty());
    return;
  }
  std::string bytes;
  EncodeStartupPacket(*packet, bytes);
  Check(bytes.size() == body.size() + 4);
  Check(std::string_view(bytes).substr(4) == body);
  auto length = CheckStartupLength(static_cast<int32_t>(bytes.size()));
  Check(!length || *length == body.size());
}

void FuzzMessage(char type, std::string_view body, Phase phase) {
  auto header = CheckMessageHeader(type, static_cast<int32_t>(body.size() + 4), phase, 1 << 20);
  if (!header) return;  // postgres.c would not read this body
  Check(*header == body.size());
  auto message = DecodeMessage(type, body);
  if (type == 'B') {
    // The connection's decoder, into one Bind reused across inputs, agrees with DecodeMessage.
    static Bind reused;
    auto violation = DecodeBind(body, reused);
    Check(violation.has_value() == !message);
    if (message) {
      std::string direct;
      std::string via_reused;
      EncodeMessage(*message, direct);
      EncodeMessage(reused, via_reused);
      Check(direct == via_reused);
    } else {
      Check(violation->message == message.error().message);
    }
  }
  if (!message) {
    Check(message.error().sqlstate == "08P01" && !message.error().message.empty());
    return;
  }
  Check(MessageType(*message) == type);
  std::string bytes;
  EncodeMessage(*message, bytes);
  Check(bytes.size() == body.size() + 5);
  Check(bytes[0] == type);
  Check(std::string_view(bytes).substr(5) == body);
}

void FuzzPassword(std::string_view payload) {
  if (auto password = DecodePassword(payload)) {
    Check(password->size() + 1 == payload.size());
  }
  if (auto sasl = DecodeSaslInitialResponse(payload)) {
    size_t data = sasl->data ? sasl->data->size() : 0;
    Check(sasl->mechanism.size() + 1 + 4 + data == payload.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  char mode = input[0];
  std::string_view rest = input.substr(1);
  switch (static_cast<unsigned char>(mode) % 4) {
    case 0:
      FuzzStartup(rest);
      break;
    case 1:
    case 2:
      if (!rest.empty()) {
        FuzzMessage(rest[0], rest.substr(1),
                    mode % 4 == 1 ? Phase::kReady : Phase::kAuthenticating);
      }
      break;
    default:
      FuzzPassword(rest);
      break;
  }
  return 0;
}
