#include "tpcc/transactions.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <numeric>

#include "tpcc/population.h"

namespace farmdb::tpcc {
namespace {

struct Statement {
  const char* name;
  const char* sql;
};

constexpr Statement kStatements[] = {
    {"begin", "BEGIN"},
    {"begin_ro", "BEGIN READ ONLY"},
    {"commit", "COMMIT"},
    {"rollback", "ROLLBACK"},
    // New-Order (Clause 2.4.2)
    {"no_warehouse", "SELECT w_tax FROM warehouse WHERE w_id = $1"},
    {"no_district",
     "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 "
     "RETURNING d_tax, d_next_o_id - 1"},
    {"no_customer", "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"},
    {"no_orders",
     "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) "
     "VALUES ($1, $2, $3, $4, $5, NULL, $6, $7)"},
    {"no_new_order", "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)"},
    {"no_item", "SELECT i_price, i_name, i_data FROM item WHERE i_id = $1"},
    {"no_order_line",
     "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, "
     "ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8, $9)"},
    // Payment (Clause 2.5.2)
    {"pay_warehouse",
     "UPDATE warehouse SET w_ytd = w_ytd + $2 WHERE w_id = $1 "
     "RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip"},
    {"pay_district",
     "UPDATE district SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2 "
     "RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip"},
    {"pay_customer_ids", "SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first"},
    // Clause 2.5.2.2: a bad-credit customer's c_data gets the payment prepended, kept to 500.
    {"pay_customer",
     "UPDATE customer SET c_balance = c_balance - $4, c_ytd_payment = c_ytd_payment + $4, "
     "c_payment_cnt = c_payment_cnt + 1, "
     "c_data = CASE WHEN c_credit = 'BC' THEN substr($5 || c_data, 1, 500) ELSE c_data END "
     "WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 "
     "RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, "
     "c_credit, c_credit_lim, c_discount, c_balance"},
    {"pay_history",
     "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
     "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"},
    // Order-Status (Clause 2.6.2)
    {"os_customer_by_name",
     "SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer "
     "WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first"},
    {"os_customer",
     "SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"},
    {"os_last_order",
     "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 "
     "ORDER BY o_id DESC LIMIT 1"},
    {"os_lines",
     "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
     "WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3"},
    // Delivery (Clause 2.7.4)
    {"dl_oldest", "SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id LIMIT 1"},
    {"dl_claim", "DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3"},
    {"dl_order", "UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3 RETURNING o_c_id"},
    {"dl_lines",
     "UPDATE order_line SET ol_delivery_d = $4 WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 "
     "RETURNING ol_amount"},
    {"dl_customer",
     "UPDATE customer SET c_balance = c_balance + $4, c_delivery_cnt = c_delivery_cnt + 1 "
     "WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"},
    // Stock-Level (Clause 2.8.2)
    {"sl_district", "SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2"},
    {"sl_count",
     "SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_i_id = ol_i_id "
     "WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id >= $3 - 20 AND ol_o_id < $3 "
     "AND s_w_id = $1 AND s_quantity < $4"},
};

// New-Order's stock update returns the s_dist_xx of the order's district: one statement per
// district, "no_stock_1" .. "no_stock_10". Clause 2.4.2.2: the quantity drops by the ordered
// amount, plus 91 when that would leave fewer than 10.
std::string StockStatementName(int64_t district) { return "no_stock_" + std::to_string(district); }
std::string StockStatementSql(int64_t district) {
  return fmt::format(
      "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END, "
      "s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4 "
      "WHERE s_w_id = $1 AND s_i_id = $2 RETURNING s_quantity, s_data, s_dist_{:02d}",
      district);
}

std::string Timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string Cents(int64_t cents) { return Random::FormatDecimal(cents, 2); }

PgError Unexpected(const std::string& what) { return PgError{"", "unexpected result: " + what, ""}; }

PgResult<Outcome> NewOrder(Connection& conn, const NewOrderInput& in) {
  int64_t w = in.warehouse, d = in.district;
  conn.Queue("begin", {});
  conn.Queue("no_warehouse", Params::Of(w));
  conn.Queue("no_district", Params::Of(w, d));
  conn.Queue("no_customer", Params::Of(w, d, in.customer));
  auto head = conn.RunBatch();
  if (!head) return std::unexpected(head.error());
  if ((*head)[2].size() != 1 || (*head)[3].size() != 1) return std::unexpected(Unexpected("no district or customer"));
  int64_t order = (*head)[2].Int(0, 1);

  size_t n = in.lines.size();
  std::vector<size_t> by_stock(n);  // lines in (supply warehouse, item) order
  std::iota(by_stock.begin(), by_stock.end(), 0);
  std::ranges::sort(by_stock, [&](size_t a, size_t b) {
    return std::pair(in.lines[a].supply_warehouse, in.lines[a].item) <
           std::pair(in.lines[b].supply_warehouse, in.lines[b].item);
  });
  conn.Queue("no_orders",
             Params::Of(order, d, w, in.customer, Timestamp(), static_cast<int64_t>(n), in.all_local ? 1 : 0));
  conn.Queue("no_new_order", Params::Of(order, d, w));
  for (const auto& line : in.lines) conn.Queue("no_item", Params::Of(line.item));
  for (size_t i : by_stock) {
    const auto& line = in.lines[i];
    bool remote = line.supply_warehouse != w;
    conn.Queue(StockStatementName(d), Params::Of(line.supply_warehouse, line.item, line.quantity, remote));
  }
  auto body = conn.RunBatch();
  if (!body) return std::unexpected(body.error());
  const size_t items = 2, stocks = 2 + n;
  // Clause 2.4.2.3: an unused item number rolls the whole transaction back.
  for (size_t i = 0; i < n; ++i) {
    if ((*body)[items + i].empty()) {
      conn.Queue("rollback", {});
      if (auto r = conn.RunBatch(); !r) return std::unexpected(r.error());
      return Outcome{true, 0};
    }
  }
  std::vector<std::string> dist_info(n);
  for (size_t k = 0; k < n; ++k) {
    const Rows& stock = (*body)[stocks + k];
    if (stock.size() != 1) return std::unexpected(Unexpected("no stock row"));
    dist_info[by_stock[k]] = std::string(stock.Text(0, 2));
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& line = in.lines[i];
    int64_t amount = line.quantity * (*body)[items + i].Cents(0, 0);
    conn.Queue("no_order_line", Params::Of(order, d, w, static_cast<int64_t>(i + 1), line.item, line.supply_warehouse,
                                           line.quantity, Cents(amount), std::move(dist_info[i])));
  }
  conn.Queue("commit", {});
  if (auto r = conn.RunBatch(); !r) return std::unexpected(r.error());
  return Outcome{};
}

// The customer a by-name lookup selects: the one at position ceil(n / 2) by c_first
// (Clause 2.5.2.2).
int64_t MiddleCustomer(const Rows& ids) { return ids.Int((ids.size() - 1) / 2, 0); }

PgResult<Outcome> Payment(Connection& conn, const PaymentInput& in) {
  int64_t w = in.warehouse, d = in.district, cw = in.customer_warehouse, cd = in.customer_district;
  bool by_name = !in.customer.last_name.empty();
  conn.Queue("begin", {});
  conn.Queue("pay_warehouse", Params::Of(w, Cents(in.amount_cents)));
  conn.Queue("pay_district", Params::Of(w, d, Cents(in.amount_cents)));
  if (by_name) conn.Queue("pay_customer_ids", Params::Of(cw, cd, in.customer.last_name));
  auto head = conn.RunBatch();
  if (!head) return std::unexpected(head.error());
  if ((*head)[1].size() != 1 || (*head)[2].size() != 1) return std::unexpected(Unexpected("no warehouse or district"));
  if (by_name && (*head)[3].empty()) return std::unexpected(Unexpected("no customer named " + in.customer.last_name));
  int64_t c = by_name ? MiddleCustomer((*head)[3]) : in.customer.id;

  std::string amount = Cents(in.amount_cents);
  std::string credit_note = fmt::format("{} {} {} {} {} {} | ", c, cd, cw, d, w, amount);
  std::string h_data = fmt::format("{}    {}", (*head)[1].Text(0, 0), (*head)[2].Text(0, 0));
  conn.Queue("pay_customer", Params::Of(cw, cd, c, amount, std::move(credit_note)));
  conn.Queue("pay_history",
             Params::Of(c, cd, cw, d, w, Timestamp(), amount, std::move(h_data)));
  conn.Queue("commit", {});
  auto tail = conn.RunBatch();
  if (!tail) return std::unexpected(tail.error());
  if ((*tail)[0].size() != 1) return std::unexpected(Unexpected("no customer row to update"));
  return Outcome{};
}

PgResult<Outcome> OrderStatus(Connection& conn, const OrderStatusInput& in) {
  int64_t w = in.warehouse, d = in.district;
  conn.Queue("begin_ro", {});
  if (in.customer.last_name.empty()) {
    conn.Queue("os_customer", Params::Of(w, d, in.customer.id));
  } else {
    conn.Queue("os_customer_by_name", Params::Of(w, d, in.customer.last_name));
  }
  auto customer = conn.RunBatch();
  if (!customer) return std::unexpected(customer.error());
  if ((*customer)[1].empty()) return std::unexpected(Unexpected("no customer"));
  int64_t c = MiddleCustomer((*customer)[1]);
  conn.Queue("os_last_order", Params::Of(w, d, c));
  auto order = conn.RunBatch();
  if (!order) return std::unexpected(order.error());
  if ((*order)[0].empty()) return std::unexpected(Unexpected("customer without orders"));
  conn.Queue("os_lines", Params::Of(w, d, (*order)[0].Int(0, 0)));
  conn.Queue("commit", {});
  if (auto r = conn.RunBatch(); !r) return std::unexpected(r.error());
  return Outcome{};
}

// Clause 2.7.4: for each district, the oldest undelivered order is delivered: its new_order row
// deleted, its carrier and delivery dates set, its amount added to the customer's balance.
// An order is claimed by deleting its new_order row. When the DELETE finds the row gone, a
// concurrent Delivery claimed it since our SELECT (PostgreSQL's READ COMMITTED re-checks the row
// after waiting for its lock): look again, with a fresh statement snapshot, for the next one.
// At snapshot isolation and above both systems raise 40001 instead, and the driver retries.
PgResult<Outcome> Delivery(Connection& conn, const DeliveryInput& in) {
  constexpr int kMaxRounds = 10;
  int64_t w = in.warehouse;
  struct Claim {
    int64_t district, order;
  };
  std::vector<int64_t> pending;
  for (int64_t d = 1; d <= kDistrictsPerWarehouse; ++d) pending.push_back(d);
  std::vector<Claim> claimed;
  Outcome outcome;
  conn.Queue("begin", {});
  for (int round = 0; round < kMaxRounds && !pending.empty(); ++round) {
    for (int64_t d : pending) conn.Queue("dl_oldest", Params::Of(w, d));
    auto oldest = conn.RunBatch();
    if (!oldest) return std::unexpected(oldest.error());
    size_t first = oldest->size() - pending.size();  // past BEGIN in the first round
    std::vector<Claim> found;
    for (size_t i = 0; i < pending.size(); ++i) {
      const Rows& r = (*oldest)[first + i];
      if (r.empty()) {
        ++outcome.skipped_districts;  // nothing to deliver in this district
      } else {
        found.push_back({pending[i], r.Int(0, 0)});
      }
    }
    pending.clear();
    if (found.empty()) break;
    for (const Claim& f : found) conn.Queue("dl_claim", Params::Of(w, f.district, f.order));
    auto deleted = conn.RunBatch();
    if (!deleted) return std::unexpected(deleted.error());
    for (size_t i = 0; i < found.size(); ++i) {
      if ((*deleted)[i].Affected() == 1) {
        claimed.push_back(found[i]);
      } else {
        pending.push_back(found[i].district);
      }
    }
  }
  outcome.skipped_districts += static_cast<int>(pending.size());
  if (!claimed.empty()) {
    std::string now = Timestamp();
    for (const Claim& c : claimed) conn.Queue("dl_order", Params::Of(w, c.district, c.order, in.carrier));
    for (const Claim& c : claimed) {
      conn.Queue("dl_lines", Params::Of(w, c.district, c.order, now));
    }
    auto updated = conn.RunBatch();
    if (!updated) return std::unexpected(updated.error());
    for (size_t i = 0; i < claimed.size(); ++i) {
      const Rows& order = (*updated)[i];
      const Rows& lines = (*updated)[claimed.size() + i];
      if (order.size() != 1) return std::unexpected(Unexpected("claimed order missing"));
      int64_t total = 0;
      for (int k = 0; k < lines.size(); ++k) total += lines.Cents(k, 0);
      conn.Queue("dl_customer",
                 Params::Of(w, claimed[i].district, order.Int(0, 0), Cents(total)));
    }
  }
  conn.Queue("commit", {});
  if (auto r = conn.RunBatch(); !r) return std::unexpected(r.error());
  return outcome;
}

PgResult<Outcome> StockLevel(Connection& conn, const StockLevelInput& in) {
  conn.Queue("begin_ro", {});
  conn.Queue("sl_district", Params::Of(in.warehouse, in.district));
  auto district = conn.RunBatch();
  if (!district) return std::unexpected(district.error());
  if ((*district)[1].size() != 1) return std::unexpected(Unexpected("no district"));
  conn.Queue("sl_count", Params::Of(in.warehouse, in.district, (*district)[1].Int(0, 0), in.threshold));
  conn.Queue("commit", {});
  if (auto r = conn.RunBatch(); !r) return std::unexpected(r.error());
  return Outcome{};
}

}  // namespace

PgResult<void> PrepareStatements(Connection& conn) {
  for (const Statement& s : kStatements) {
    if (auto r = conn.Prepare(s.name, s.sql); !r) return r;
  }
  for (int64_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
    if (auto r = conn.Prepare(StockStatementName(d), StockStatementSql(d)); !r) return r;
  }
  return {};
}

PgResult<Outcome> Execute(Connection& conn, const Input& input) {
  return std::visit(
      [&](const auto& in) -> PgResult<Outcome> {
        using T = std::decay_t<decltype(in)>;
        if constexpr (std::is_same_v<T, NewOrderInput>) return NewOrder(conn, in);
        if constexpr (std::is_same_v<T, PaymentInput>) return Payment(conn, in);
        if constexpr (std::is_same_v<T, OrderStatusInput>) return OrderStatus(conn, in);
        if constexpr (std::is_same_v<T, DeliveryInput>) return Delivery(conn, in);
        if constexpr (std::is_same_v<T, StockLevelInput>) return StockLevel(conn, in);
      },
      input);
}

}  // namespace farmdb::tpcc
