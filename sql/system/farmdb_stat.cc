// farmdb_stat_machines, farmdb_stat_aborts, farmdb_stat_peers and farmdb_stat_regions: the node a session is
// connected to, from its ClusterStatsSource (cluster_stats.h). farmdb's own views, in
// pg_catalog so every search path finds them, with OIDs from initdb's range that PostgreSQL 15
// leaves unused. Without a source (a catalog function's context) they are empty.
#include <cstdio>

#include "sql/system/cluster_stats.h"
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

Value Int8Value(int64_t v) { return Value::Int(kInt8, v); }
Value OptionalInt8(const std::optional<uint64_t>& v) { return v ? Int8Value(static_cast<int64_t>(*v)) : Value::Null(kInt8); }
Value OptionalFloat8(const std::optional<double>& v) { return v ? Value::Float(kFloat8, *v) : Value::Null(kFloat8); }

ViewRows MachineRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  if (!ctx.cluster) return rows;
  for (const MachineStats& m : ctx.cluster->MachineStatistics()) {
    rows.push_back(RowBuilder(columns)
                       .Set("machine", Int4Value(m.machine)).Set("is_cm", BoolValue(m.is_cm))
                       .Set("configuration", Int8Value(static_cast<int64_t>(m.configuration)))
                       .Set("machines", Int4Value(m.machines))
                       .Set("commits", Int8Value(static_cast<int64_t>(m.commits)))
                       .Set("read_only_commits", Int8Value(static_cast<int64_t>(m.read_only_commits)))
                       .Set("aborts", Int8Value(static_cast<int64_t>(m.aborts)))
                       .Set("clock_uncertainty_ns", m.clock_uncertainty_ns ? Int8Value(*m.clock_uncertainty_ns)
                                                                           : Value::Null(kInt8))
                       .Set("fabric_frames_out", OptionalInt8(m.fabric_frames_out))
                       .Set("fabric_bytes_out", OptionalInt8(m.fabric_bytes_out))
                       .Set("fabric_system_calls", OptionalInt8(m.fabric_system_calls))
                       .Set("lease_ms", Value::Float(kFloat8, m.lease_ms))
                       .Set("lease_held", BoolValue(m.lease_held))
                       .Set("suspicions", Int8Value(static_cast<int64_t>(m.suspicions)))
                       .Take());
  }
  return rows;
}

ViewRows AbortRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  if (!ctx.cluster) return rows;
  for (const MachineStats& m : ctx.cluster->MachineStatistics()) {
    for (const auto& [reason, count] : m.aborts_by_reason) {
      rows.push_back(RowBuilder(columns)
                         .Set("machine", Int4Value(m.machine)).Set("reason", TextValue(reason))
                         .Set("count", Int8Value(static_cast<int64_t>(count)))
                         .Take());
    }
  }
  return rows;
}

ViewRows PeerRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  if (!ctx.cluster) return rows;
  for (const PeerStats& p : ctx.cluster->PeerStatistics()) {
    rows.push_back(RowBuilder(columns)
                       .Set("machine", Int4Value(p.machine)).Set("peer", Int4Value(p.peer))
                       .Set("heard_ms_ago", OptionalFloat8(p.heard_ms_ago))
                       .Set("lease_left_ms", OptionalFloat8(p.lease_left_ms))
                       .Set("longest_renewal_gap_ms", OptionalFloat8(p.longest_renewal_gap_ms))
                       .Set("suspected", BoolValue(p.suspected))
                       .Take());
  }
  return rows;
}

ViewRows RegionRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  if (!ctx.cluster) return rows;
  for (const RegionStats& r : ctx.cluster->RegionStatistics()) {
    ArrayValue backups;
    for (uint32_t b : r.backups) backups.elements.push_back(Int4Value(b));
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(r.digest));
    rows.push_back(RowBuilder(columns)
                       .Set("region", Int8Value(r.region)).Set("size", Int8Value(static_cast<int64_t>(r.size)))
                       .Set("primary_machine", Int4Value(r.primary))
                       .Set("backup_machines", Value::Array(kInt4Array, std::move(backups)))
                       .Set("machine", Int4Value(r.machine))
                       .Set("role", TextValue(r.machine == r.primary ? "primary" : "backup"))
                       .Set("digest", TextValue(digest))
                       .Take());
  }
  return rows;
}

}  // namespace

void AppendFarmdbStatViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "farmdb_stat_machines", 16300, 'v',
      std::vector<SystemColumn>{{"machine", kInt4}, {"is_cm", kBool}, {"configuration", kInt8}, {"machines", kInt4},
                                {"commits", kInt8}, {"read_only_commits", kInt8}, {"aborts", kInt8},
                                {"clock_uncertainty_ns", kInt8}, {"fabric_frames_out", kInt8},
                                {"fabric_bytes_out", kInt8}, {"fabric_system_calls", kInt8}, {"lease_ms", kFloat8},
                                {"lease_held", kBool}, {"suspicions", kInt8}},
      MachineRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "farmdb_stat_aborts", 16303, 'v',
      std::vector<SystemColumn>{{"machine", kInt4}, {"reason", kText}, {"count", kInt8}}, AbortRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "farmdb_stat_peers", 16301, 'v',
      std::vector<SystemColumn>{{"machine", kInt4}, {"peer", kInt4}, {"heard_ms_ago", kFloat8},
                                {"lease_left_ms", kFloat8}, {"longest_renewal_gap_ms", kFloat8}, {"suspected", kBool}},
      PeerRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "farmdb_stat_regions", 16302, 'v',
      std::vector<SystemColumn>{{"region", kInt8}, {"size", kInt8}, {"primary_machine", kInt4},
                                {"backup_machines", kInt4Array}, {"machine", kInt4}, {"role", kText},
                                {"digest", kText}},
      RegionRows));
}

}  // namespace farmdb::sql
