// inputs: what a terminal keys in for each of the five transactions (TPC-C Clauses 2.4.1,
// 2.5.1, 2.6.1, 2.7.1, 2.8.1), drawn before the first attempt so that a retried transaction
// runs again with the same input.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "tpcc/population.h"
#include "tpcc/random.h"

namespace farmdb::tpcc {

enum class TxnType { kNewOrder, kPayment, kOrderStatus, kDelivery, kStockLevel };
inline constexpr int kTxnTypes = 5;
const char* Name(TxnType type);  // "NewOrder", ...

// Percentages of New-Order, Payment, Order-Status, Delivery and Stock-Level, summing to 100.
// kStandardMix is the (TPC-C's minimums for the last four, Clause 5.2.3); others isolate
// one transaction's cost or conflicts.
using Mix = std::array<int, kTxnTypes>;
inline constexpr Mix kStandardMix = {45, 43, 4, 4, 4};
TxnType ChooseType(const Mix& mix, Random& r);

// A customer named by id, or by last name (then the middle one of those sorted by c_first).
struct CustomerRef {
  int64_t id = 0;         // when last_name is empty
  std::string last_name;  // else
};

struct NewOrderInput {
  struct Line {
    int64_t item = 0;
    int64_t supply_warehouse = 0;
    int64_t quantity = 0;
  };
  int64_t warehouse = 0, district = 0, customer = 0;
  std::vector<Line> lines;  // 5..15; the last names an unused item in 1% of inputs
  bool all_local = true;
};

struct PaymentInput {
  int64_t warehouse = 0, district = 0;
  int64_t customer_warehouse = 0, customer_district = 0;  // 15% another warehouse's customer
  CustomerRef customer;
  int64_t amount_cents = 0;  // 1.00 .. 5000.00
};

struct OrderStatusInput {
  int64_t warehouse = 0, district = 0;
  CustomerRef customer;
};

struct DeliveryInput {
  int64_t warehouse = 0;
  int64_t carrier = 0;
};

struct StockLevelInput {
  int64_t warehouse = 0, district = 0;
  int64_t threshold = 0;  // 10..20
};

using Input = std::variant<NewOrderInput, PaymentInput, OrderStatusInput, DeliveryInput, StockLevelInput>;

// A terminal's fixed home: its warehouse, and the district its Stock-Level transactions use.
struct Terminal {
  int64_t warehouse = 1;
  int64_t district = 1;
  int64_t warehouses = 1;  // in the database
  Scale scale;             // of the database
};

Input MakeInput(TxnType type, const Terminal& terminal, Random& r);

}  // namespace farmdb::tpcc
