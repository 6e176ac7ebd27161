// population: the initial database of TPC-C Clause 4.3.3.1 as COPY text (tab-separated, \N for
// NULL), cut into units that loader connections take in parallel. Each unit draws from its own
// Random seeded from (seed, unit), so the database is the same whatever the connection count
// and order of loading.
//
// Per warehouse: 1 warehouse row, 10 districts, 100,000 stock rows, and per district 3,000
// customers with one history row each, 3,000 orders (o_c_id a random permutation of the
// customers, ids 2101..3000 undelivered and in new_order) and 5..15 order lines per order.
// item holds 100,000 rows whatever the warehouse count. A smaller Scale shrinks those counts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace farmdb::tpcc {

inline constexpr int kDistrictsPerWarehouse = 10;

// How many items, and customers (as many orders) per district. TPC-C's population is Scale{}.
// A smaller one keeps every rule but the counts, so that tests load quickly under sanitizers;
// it is not TPC-C, and the report says so.
struct Scale {
  int items = 100000;
  int customers = 3000;

  // The last 30% of a district's orders are undelivered, in new_order (2101..3000).
  int FirstUndelivered() const { return customers - customers * 3 / 10 + 1; }
  // Customers 1..LastNames() carry the last names 0..LastNames()-1 once each (all 1,000).
  int LastNames() const { return std::min(1000, customers); }
  bool operator==(const Scale&) const = default;
};
inline constexpr Scale kStandardScale{};

// One table's rows of a unit, ready for COPY table FROM STDIN.
struct TableRows {
  std::string_view table;
  std::string text;
  int64_t rows = 0;
};

struct LoadUnit {
  enum class Kind { kItems, kWarehouse, kStock, kCustomers, kOrders } kind;
  int warehouse = 0;  // 1-based; 0 for items
  int district = 0;   // 1-based for kCustomers and kOrders
  int part = 0;       // which slice of items, stock or a district's orders
};

// Every unit of a load of `warehouses` warehouses, largest first so parallel loaders finish
// together.
std::vector<LoadUnit> LoadUnits(int warehouses, const Scale& scale);
// About how many rows a unit holds (for the progress bar).
int64_t ExpectedRows(const LoadUnit& unit, const Scale& scale);

// The unit's rows. `now` is the load's timestamp text ("2026-01-31 12:00:00").
std::vector<TableRows> Populate(const LoadUnit& unit, const Scale& scale, uint64_t seed, const std::string& now);

}  // namespace farmdb::tpcc
