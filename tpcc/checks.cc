#include "tpcc/checks.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <utility>

namespace farmdb::tpcc {
namespace {

using District = std::pair<int64_t, int64_t>;  // (w_id, d_id)

struct DistrictFacts {
  int64_t ytd_cents = 0, next_o_id = 0;
  // orders
  int64_t max_o_id = 0, sum_ol_cnt = 0, undelivered_orders = 0;
  // new_order
  int64_t new_orders = 0, max_no_o_id = 0, min_no_o_id = 0;
  // new_order rows whose order has no carrier
  int64_t new_orders_undelivered = 0;
  // order_line
  int64_t order_lines = 0;
};

std::string Name(const District& d) { return fmt::format("district ({}, {})", d.first, d.second); }

// Runs the queries and gathers, per warehouse, w_ytd and, per district, the facts above.
PgResult<void> Gather(Connection& conn, std::map<int64_t, int64_t>& w_ytd, std::map<District, DistrictFacts>& facts) {
  auto run = [&](const char* sql, auto&& each) -> PgResult<void> {
    auto rows = conn.Exec(sql);
    if (!rows) return std::unexpected(rows.error());
    for (int i = 0; i < rows->size(); ++i) each(*rows, i);
    return {};
  };
  auto at = [&](const Rows& r, int i) -> DistrictFacts& { return facts[{r.Int(i, 0), r.Int(i, 1)}]; };
  const std::pair<const char*, std::function<void(const Rows&, int)>> queries[] = {
      {"SELECT w_id, w_ytd FROM warehouse", [&](const Rows& r, int i) { w_ytd[r.Int(i, 0)] = r.Cents(i, 1); }},
      {"SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM district",
       [&](const Rows& r, int i) {
         at(r, i).ytd_cents = r.Cents(i, 2);
         at(r, i).next_o_id = r.Int(i, 3);
       }},
      {"SELECT o_w_id, o_d_id, max(o_id), sum(o_ol_cnt), sum(CASE WHEN o_carrier_id IS NULL THEN 1 ELSE 0 END) "
       "FROM orders GROUP BY o_w_id, o_d_id",
       [&](const Rows& r, int i) {
         at(r, i).max_o_id = r.Int(i, 2);
         at(r, i).sum_ol_cnt = r.Int(i, 3);
         at(r, i).undelivered_orders = r.Int(i, 4);
       }},
      {"SELECT no_w_id, no_d_id, count(*), max(no_o_id), min(no_o_id) FROM new_order GROUP BY no_w_id, no_d_id",
       [&](const Rows& r, int i) {
         at(r, i).new_orders = r.Int(i, 2);
         at(r, i).max_no_o_id = r.Int(i, 3);
         at(r, i).min_no_o_id = r.Int(i, 4);
       }},
      {"SELECT no_w_id, no_d_id, count(*) FROM new_order JOIN orders "
       "ON o_w_id = no_w_id AND o_d_id = no_d_id AND o_id = no_o_id WHERE o_carrier_id IS NULL "
       "GROUP BY no_w_id, no_d_id",
       [&](const Rows& r, int i) { at(r, i).new_orders_undelivered = r.Int(i, 2); }},
      {"SELECT ol_w_id, ol_d_id, count(*) FROM order_line GROUP BY ol_w_id, ol_d_id",
       [&](const Rows& r, int i) { at(r, i).order_lines = r.Int(i, 2); }},
  };
  for (const auto& [sql, each] : queries) {
    if (auto r = run(sql, each); !r) return r;
  }
  return {};
}

}  // namespace

PgResult<std::vector<CheckResult>> CheckConsistency(const std::string& conninfo) {
  auto conn = Connection::Open(conninfo, false);
  if (!conn) return std::unexpected(conn.error());
  if (auto r = conn->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); !r) return std::unexpected(r.error());
  std::map<int64_t, int64_t> w_ytd;
  std::map<District, DistrictFacts> facts;
  if (auto r = Gather(*conn, w_ytd, facts); !r) return std::unexpected(r.error());
  if (auto r = conn->Exec("COMMIT"); !r) return std::unexpected(r.error());

  std::vector<CheckResult> out = {
      {1, "W_YTD = sum(D_YTD) per warehouse", true, ""},
      {2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district", true, ""},
      {3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order) per district", true, ""},
      {4, "sum(O_OL_CNT) = count(order_line) per district", true, ""},
      {5, "O_CARRIER_ID is NULL iff a new_order row exists", true, ""},
  };
  auto fail = [&](int condition, std::string why) {
    CheckResult& c = out[static_cast<size_t>(condition - 1)];
    if (c.passed) c.failure = std::move(why);
    c.passed = false;
  };
  std::map<int64_t, int64_t> d_ytd_sum;
  for (const auto& [d, f] : facts) d_ytd_sum[d.first] += f.ytd_cents;
  if (w_ytd.empty()) fail(1, "no warehouses");
  for (const auto& [w, ytd] : w_ytd) {
    if (ytd != d_ytd_sum[w]) fail(1, fmt::format("warehouse {}: w_ytd {} != sum(d_ytd) {} (cents)", w, ytd, d_ytd_sum[w]));
  }
  for (const auto& [d, f] : facts) {
    // A district whose every order was delivered has no max(NO_O_ID): condition 2 then compares
    // D_NEXT_O_ID with max(O_ID) alone, and condition 3 has nothing to count.
    if (f.next_o_id - 1 != f.max_o_id || (f.new_orders > 0 && f.max_no_o_id != f.max_o_id)) {
      fail(2, fmt::format("{}: d_next_o_id {}, max(o_id) {}, max(no_o_id) {}", Name(d), f.next_o_id, f.max_o_id,
                          f.new_orders > 0 ? std::to_string(f.max_no_o_id) : "none"));
    }
    if (f.new_orders > 0 && f.max_no_o_id - f.min_no_o_id + 1 != f.new_orders) {
      fail(3, fmt::format("{}: new_order ids {}..{} but {} rows", Name(d), f.min_no_o_id, f.max_no_o_id, f.new_orders));
    }
    if (f.sum_ol_cnt != f.order_lines) {
      fail(4, fmt::format("{}: sum(o_ol_cnt) {} != {} order lines", Name(d), f.sum_ol_cnt, f.order_lines));
    }
    if (f.undelivered_orders != f.new_orders || f.new_orders_undelivered != f.new_orders) {
      fail(5, fmt::format("{}: {} orders without carrier, {} new_order rows, {} of them for orders without carrier",
                          Name(d), f.undelivered_orders, f.new_orders, f.new_orders_undelivered));
    }
  }
  return out;
}

}  // namespace farmdb::tpcc
