#include "tpcc/inputs.h"

#include "tpcc/population.h"

namespace farmdb::tpcc {
namespace {

// A warehouse other than `home`, uniform over the rest; home itself when it is the only one.
int64_t OtherWarehouse(const Terminal& t, Random& r) {
  if (t.warehouses == 1) return t.warehouse;
  int64_t w = r.Uniform(1, t.warehouses - 1);
  return w >= t.warehouse ? w + 1 : w;
}

// 60% by last name, 40% by id (Clauses 2.5.1.2, 2.6.1.2).
CustomerRef Customer(const Terminal& t, Random& r) {
  if (r.Uniform(1, 100) <= 60) return CustomerRef{0, r.CustomerLastName(t.scale.LastNames())};
  return CustomerRef{r.CustomerId(t.scale.customers), ""};
}

NewOrderInput NewOrder(const Terminal& t, Random& r) {
  NewOrderInput in;
  in.warehouse = t.warehouse;
  in.district = r.Uniform(1, kDistrictsPerWarehouse);
  in.customer = r.CustomerId(t.scale.customers);
  int64_t count = r.Uniform(5, 15);
  bool rollback = r.Uniform(1, 100) == 1;
  for (int64_t i = 0; i < count; ++i) {
    NewOrderInput::Line line;
    // Clause 2.4.1.4: the rolled-back New-Order's last item is an unused number.
    line.item = rollback && i == count - 1 ? t.scale.items + 1 : r.ItemId(t.scale.items);
    line.supply_warehouse = r.Uniform(1, 100) == 1 ? OtherWarehouse(t, r) : t.warehouse;
    line.quantity = r.Uniform(1, 10);
    in.all_local = in.all_local && line.supply_warehouse == t.warehouse;
    in.lines.push_back(line);
  }
  return in;
}

PaymentInput Payment(const Terminal& t, Random& r) {
  PaymentInput in;
  in.warehouse = t.warehouse;
  in.district = r.Uniform(1, kDistrictsPerWarehouse);
  if (r.Uniform(1, 100) <= 85) {
    in.customer_warehouse = in.warehouse;
    in.customer_district = in.district;
  } else {
    in.customer_warehouse = OtherWarehouse(t, r);
    in.customer_district = r.Uniform(1, kDistrictsPerWarehouse);
  }
  in.customer = Customer(t, r);
  in.amount_cents = r.Uniform(100, 500000);
  return in;
}

}  // namespace

const char* Name(TxnType type) {
  switch (type) {
    case TxnType::kNewOrder: return "NewOrder";
    case TxnType::kPayment: return "Payment";
    case TxnType::kOrderStatus: return "OrderStatus";
    case TxnType::kDelivery: return "Delivery";
    case TxnType::kStockLevel: return "StockLevel";
  }
  return "?";
}

TxnType ChooseType(const Mix& mix, Random& r) {
  int64_t x = r.Uniform(1, 100);
  for (size_t t = 0; t < mix.size(); ++t) {
    x -= mix[t];
    if (x <= 0) return static_cast<TxnType>(t);
  }
  return TxnType::kStockLevel;
}

Input MakeInput(TxnType type, const Terminal& t, Random& r) {
  switch (type) {
    case TxnType::kNewOrder: return NewOrder(t, r);
    case TxnType::kPayment: return Payment(t, r);
    case TxnType::kOrderStatus:
      return OrderStatusInput{t.warehouse, r.Uniform(1, kDistrictsPerWarehouse), Customer(t, r)};
    case TxnType::kDelivery: return DeliveryInput{t.warehouse, r.Uniform(1, 10)};
    case TxnType::kStockLevel: return StockLevelInput{t.warehouse, t.district, r.Uniform(10, 20)};
  }
  return DeliveryInput{};
}

}  // namespace farmdb::tpcc
