// MachineState: what a machine keeps about itself on disk besides region images and its log,
// in `m<id>/machine.state` (format in cluster/FORMATS.md). Written whole and atomically
// (Files::Replace) whenever it changes: a region placed on this machine, the CM's region counter,
// the timestamp floor, a checkpoint, the start of a run. Rare events all: no commit waits for it.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cluster/files.h"
#include "cluster/region_map.h"
#include "cluster/types.h"

namespace farmdb::cluster {

// One run of the process: from a start (after recovery) to its crash or stop. Transaction ids
// restart with every run, so recovery reads the log run by run (txn/FORMATS.md "Runs").
struct RunRecord {
  uint64_t run = 0;
  uint64_t log_start = 0;  // the LSN of the run's first record
  std::string boot_id;     // the kernel boot the run started in (Files::BootId)
  // Decided by the recovery after the run: records of transactions with a write timestamp above
  // it are void (a power loss kept only part of them). Unset while the run is the last one.
  std::optional<Timestamp> cut;
  friend bool operator==(const RunRecord&, const RunRecord&) = default;
};

struct MachineState {
  static constexpr uint32_t kFormat = 1;
  MachineId machine = kNoMachine;
  uint32_t machines = 0;
  uint32_t replicas = 0;  // f
  uint64_t region_size = 0;
  uint64_t configuration = 1;
  // CM only: the next region id and the timestamp floor (master time never reaches it, so a
  // restart continues above every timestamp handed out).
  RegionId next_region = 1;
  Timestamp time_floor = 0;
  // CM only: the address of the object that leads to every other one the layers above keep (the
  // SQL catalog's root); 0 until they made one.
  uint64_t root_object = 0;
  // The CM: every region; others: those this machine holds a replica of.
  std::vector<RegionPlacement> regions;
  // Regions with a checkpoint image in their file, and the image's generation.
  std::vector<std::pair<RegionId, uint64_t>> images;
  // Recovery reads the log from here: every record before it is in the images.
  uint64_t log_start = 0;
  // Every transaction in the images has a write timestamp below this, and the log held every
  // transaction up to it durably when the checkpoint was written.
  Timestamp checkpoint_ts = 0;
  std::string checkpoint_boot_id;
  std::vector<RunRecord> runs;  // those with records at or after log_start, oldest first

  friend bool operator==(const MachineState&, const MachineState&) = default;
};

std::string EncodeMachineState(const MachineState& s);
// A decoding error says what is wrong; the caller names the file.
std::expected<MachineState, std::string> DecodeMachineState(std::string_view text);

// nullopt if the file does not exist; an error naming the file if it is unreadable or damaged.
std::expected<std::optional<MachineState>, std::string> LoadMachineState(Files& files,
                                                                         const std::filesystem::path& path);
std::expected<void, FileError> StoreMachineState(Files& files, const std::filesystem::path& path,
                                                 const MachineState& s);

}  // namespace farmdb::cluster
