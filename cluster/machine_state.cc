#include "cluster/machine_state.h"

#include <charconv>
#include <cstdio>
#include <sstream>

#include "cluster/crc32c.h"

namespace farmdb::cluster {

namespace {
constexpr std::string_view kMagic = "farmdb-machine-state";

std::string Crc(std::string_view text) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", Crc32c(std::as_bytes(std::span(text.data(), text.size()))));
  return hex;
}
}  // namespace

std::string EncodeMachineState(const MachineState& s) {
  std::ostringstream o;
  o << kMagic << " " << MachineState::kFormat << "\n";
  o << "machine " << s.machine << "\nmachines " << s.machines << "\nreplicas " << s.replicas
    << "\nregion_size " << s.region_size << "\nconfiguration " << s.configuration << "\nnext_region "
    << s.next_region << "\ntime_floor " << s.time_floor << "\nroot_object " << s.root_object << "\n";
  for (const RegionPlacement& r : s.regions) {
    o << "region " << r.id << " " << r.size << " " << (r.kind == RegionKind::kData ? "data" : "old") << " "
      << r.primary;
    for (MachineId b : r.backups) o << " " << b;
    o << "\n";
  }
  for (auto [id, generation] : s.images) o << "image " << id << " " << generation << "\n";
  o << "log_start " << s.log_start << "\ncheckpoint_ts " << s.checkpoint_ts << "\ncheckpoint_boot "
    << (s.checkpoint_boot_id.empty() ? "-" : s.checkpoint_boot_id) << "\n";
  for (const RunRecord& r : s.runs) {
    o << "run " << r.run << " " << r.log_start << " " << (r.boot_id.empty() ? "-" : r.boot_id) << " ";
    if (r.cut) {
      o << *r.cut;
    } else {
      o << "-";
    }
    o << "\n";
  }
  std::string text = o.str();
  return text + "crc " + Crc(text) + "\n";
}

std::expected<MachineState, std::string> DecodeMachineState(std::string_view text) {
  size_t crc_at = text.rfind("crc ");
  if (crc_at == std::string_view::npos || text.substr(crc_at) != "crc " + Crc(text.substr(0, crc_at)) + "\n") {
    return std::unexpected("checksum mismatch (the file is damaged or cut short)");
  }
  std::istringstream in{std::string(text.substr(0, crc_at))};
  std::string line, word;
  std::getline(in, line);
  if (line != std::string(kMagic) + " " + std::to_string(MachineState::kFormat)) {
    if (line.starts_with(kMagic)) {
      return std::unexpected("format version " + line.substr(kMagic.size() + 1) + ", this farmdb reads version " +
                             std::to_string(MachineState::kFormat));
    }
    return std::unexpected("not a farmdb machine state file");
  }
  MachineState s;
  auto bad = [](const std::string& l) { return std::unexpected("malformed line: " + l); };
  while (std::getline(in, line)) {
    std::istringstream f(line);
    f >> word;
    if (word == "machine") {
      f >> s.machine;
    } else if (word == "machines") {
      f >> s.machines;
    } else if (word == "replicas") {
      f >> s.replicas;
    } else if (word == "region_size") {
      f >> s.region_size;
    } else if (word == "configuration") {
      f >> s.configuration;
    } else if (word == "next_region") {
      f >> s.next_region;
    } else if (word == "time_floor") {
      f >> s.time_floor;
    } else if (word == "root_object") {
      f >> s.root_object;
    } else if (word == "region") {
      RegionPlacement r;
      std::string kind;
      f >> r.id >> r.size >> kind >> r.primary;
      if (kind != "data" && kind != "old") return bad(line);
      r.kind = kind == "data" ? RegionKind::kData : RegionKind::kOldVersions;
      MachineId b;
      while (f >> b) r.backups.push_back(b);
      f.clear();
      s.regions.push_back(std::move(r));
    } else if (word == "image") {
      RegionId id;
      uint64_t generation;
      f >> id >> generation;
      s.images.emplace_back(id, generation);
    } else if (word == "log_start") {
      f >> s.log_start;
    } else if (word == "checkpoint_ts") {
      f >> s.checkpoint_ts;
    } else if (word == "checkpoint_boot") {
      f >> s.checkpoint_boot_id;
      if (s.checkpoint_boot_id == "-") s.checkpoint_boot_id.clear();
    } else if (word == "run") {
      RunRecord r;
      std::string cut;
      f >> r.run >> r.log_start >> r.boot_id >> cut;
      if (r.boot_id == "-") r.boot_id.clear();
      if (cut != "-") {
        Timestamp t{};
        if (std::from_chars(cut.data(), cut.data() + cut.size(), t).ec != std::errc{}) return bad(line);
        r.cut = t;
      }
      s.runs.push_back(std::move(r));
    } else {
      return std::unexpected("unknown line: " + line);
    }
    if (f.fail()) return bad(line);
  }
  return s;
}

std::expected<std::optional<MachineState>, std::string> LoadMachineState(Files& files,
                                                                         const std::filesystem::path& path) {
  auto bytes = files.Read(path);
  if (!bytes) {
    if (bytes.error().errnum == ENOENT) return std::optional<MachineState>{};
    return std::unexpected(bytes.error().message);
  }
  auto s = DecodeMachineState({reinterpret_cast<const char*>(bytes->data()), bytes->size()});
  if (!s) return std::unexpected(path.string() + ": " + s.error());
  return std::optional<MachineState>(std::move(*s));
}

std::expected<void, FileError> StoreMachineState(Files& files, const std::filesystem::path& path,
                                                 const MachineState& s) {
  std::string text = EncodeMachineState(s);
  std::span<const std::byte> part = std::as_bytes(std::span(text.data(), text.size()));
  return files.Replace(path, std::span(&part, 1));
}

}  // namespace farmdb::cluster
