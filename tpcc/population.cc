#include "tpcc/population.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "tpcc/random.h"

namespace farmdb::tpcc {
namespace {

// Slices small enough that one COPY is a modest transaction and the progress bar moves.
constexpr int kItemSlice = 10000;
constexpr int kStockSlice = 10000;
constexpr int kOrderSlice = 1000;

uint64_t Mix(uint64_t x) {  // SplitMix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t SeedOf(uint64_t seed, const LoadUnit& u, int salt = 0) {
  return Mix(seed ^ Mix((static_cast<uint64_t>(u.kind) << 48) ^ (static_cast<uint64_t>(u.warehouse) << 24) ^
                        (static_cast<uint64_t>(u.district) << 16) ^ static_cast<uint64_t>(u.part) ^
                        (static_cast<uint64_t>(salt) << 56)));
}

template <typename... Args>
void Line(TableRows& t, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(t.text), f, std::forward<Args>(args)...);
  t.text += '\n';
  ++t.rows;
}

std::vector<TableRows> Items(Random& r, int part, const Scale& scale) {
  TableRows t{"item", {}, 0};
  for (int i = part * kItemSlice + 1; i <= std::min(scale.items, (part + 1) * kItemSlice); ++i) {
    Line(t, "{}\t{}\t{}\t{}\t{}", i, r.Uniform(1, 10000), r.AString(14, 24), r.Decimal(100, 10000, 2), r.Data());
  }
  return {std::move(t)};
}

// name, street 1, street 2, city, state, zip: the address columns warehouse and district share.
std::string Address(Random& r) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}", r.AString(6, 10), r.AString(10, 20), r.AString(10, 20), r.AString(10, 20),
                     r.AString(2, 2), r.Zip());
}

std::vector<TableRows> Warehouse(Random& r, int w, const Scale& scale) {
  TableRows wh{"warehouse", {}, 0}, district{"district", {}, 0};
  Line(wh, "{}\t{}\t{}\t300000.00", w, Address(r), r.Decimal(0, 2000, 4));
  for (int d = 1; d <= kDistrictsPerWarehouse; ++d) {
    Line(district, "{}\t{}\t{}\t{}\t30000.00\t{}", d, w, Address(r), r.Decimal(0, 2000, 4), scale.customers + 1);
  }
  return {std::move(wh), std::move(district)};
}

std::vector<TableRows> Stock(Random& r, int w, int part, const Scale& scale) {
  TableRows t{"stock", {}, 0};
  for (int i = part * kStockSlice + 1; i <= std::min(scale.items, (part + 1) * kStockSlice); ++i) {
    fmt::format_to(std::back_inserter(t.text), "{}\t{}\t{}", i, w, r.Uniform(10, 100));
    for (int d = 0; d < kDistrictsPerWarehouse; ++d) fmt::format_to(std::back_inserter(t.text), "\t{}", r.AString(24, 24));
    Line(t, "\t0\t0\t0\t{}", r.Data());
  }
  return {std::move(t)};
}

std::vector<TableRows> Customers(Random& r, int w, int d, const Scale& scale, const std::string& now) {
  TableRows customer{"customer", {}, 0}, history{"history", {}, 0};
  int names = scale.LastNames();
  for (int c = 1; c <= scale.customers; ++c) {
    // The first 1,000 customers cover every last name once (Clause 4.3.3.1).
    std::string last = Random::LastName(c <= names ? c - 1 : r.NURand(255, 0, names - 1));
    std::string first = r.AString(8, 16);
    std::string street_1 = r.AString(10, 20), street_2 = r.AString(10, 20), city = r.AString(10, 20);
    std::string state = r.AString(2, 2), zip = r.Zip(), phone = r.NString(16, 16);
    const char* credit = r.Uniform(1, 10) == 1 ? "BC" : "GC";
    Line(customer, "{}\t{}\t{}\t{}\tOE\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t50000.00\t{}\t-10.00\t10.00\t1\t0\t{}", c, d,
         w, first, last, street_1, street_2, city, state, zip, phone, now, credit, r.Decimal(0, 5000, 4),
         r.AString(300, 500));
    Line(history, "{}\t{}\t{}\t{}\t{}\t{}\t10.00\t{}", c, d, w, d, w, now, r.AString(12, 24));
  }
  return {std::move(customer), std::move(history)};
}

std::vector<TableRows> Orders(Random& r, const LoadUnit& u, const Scale& scale, uint64_t seed, const std::string& now) {
  // o_c_id is a permutation of the district's customers, the same for every slice of its orders.
  std::vector<int> customer(static_cast<size_t>(scale.customers));
  std::iota(customer.begin(), customer.end(), 1);
  LoadUnit whole = u;
  whole.part = 0;
  Random shuffle(SeedOf(seed, whole, 1));
  for (size_t i = customer.size() - 1; i > 0; --i) {
    std::swap(customer[i], customer[static_cast<size_t>(shuffle.Uniform(0, static_cast<int64_t>(i)))]);
  }
  TableRows orders{"orders", {}, 0}, new_order{"new_order", {}, 0}, order_line{"order_line", {}, 0};
  int w = u.warehouse, d = u.district;
  for (int o = u.part * kOrderSlice + 1; o <= std::min(scale.customers, (u.part + 1) * kOrderSlice); ++o) {
    bool delivered = o < scale.FirstUndelivered();
    int64_t lines = r.Uniform(5, 15);
    std::string carrier = delivered ? std::to_string(r.Uniform(1, 10)) : "\\N";
    Line(orders, "{}\t{}\t{}\t{}\t{}\t{}\t{}\t1", o, d, w, customer[static_cast<size_t>(o - 1)], now, carrier, lines);
    if (!delivered) Line(new_order, "{}\t{}\t{}", o, d, w);
    for (int64_t n = 1; n <= lines; ++n) {
      Line(order_line, "{}\t{}\t{}\t{}\t{}\t{}\t{}\t5\t{}\t{}", o, d, w, n, r.Uniform(1, scale.items), w,
           delivered ? now : "\\N", delivered ? "0.00" : r.Decimal(1, 999999, 2), r.AString(24, 24));
    }
  }
  return {std::move(orders), std::move(new_order), std::move(order_line)};
}

}  // namespace

std::vector<LoadUnit> LoadUnits(int warehouses, const Scale& scale) {
  using Kind = LoadUnit::Kind;
  std::vector<LoadUnit> units;
  for (int w = 1; w <= warehouses; ++w) {
    for (int d = 1; d <= kDistrictsPerWarehouse; ++d) {
      for (int p = 0; p * kOrderSlice < scale.customers; ++p) units.push_back({Kind::kOrders, w, d, p});
    }
  }
  for (int w = 1; w <= warehouses; ++w) {
    for (int d = 1; d <= kDistrictsPerWarehouse; ++d) units.push_back({Kind::kCustomers, w, d, 0});
    for (int p = 0; p * kStockSlice < scale.items; ++p) units.push_back({Kind::kStock, w, 0, p});
    units.push_back({Kind::kWarehouse, w, 0, 0});
  }
  for (int p = 0; p * kItemSlice < scale.items; ++p) units.push_back({Kind::kItems, 0, 0, p});
  std::stable_sort(units.begin(), units.end(), [&](const LoadUnit& a, const LoadUnit& b) {
    return ExpectedRows(a, scale) > ExpectedRows(b, scale);
  });
  return units;
}

int64_t ExpectedRows(const LoadUnit& u, const Scale& scale) {
  // Rows in slice `part` of `total` rows cut into slices of `slice`.
  auto in_slice = [&](int total, int slice) { return std::min(slice, total - u.part * slice); };
  switch (u.kind) {
    case LoadUnit::Kind::kItems: return in_slice(scale.items, kItemSlice);
    case LoadUnit::Kind::kWarehouse: return 1 + kDistrictsPerWarehouse;
    case LoadUnit::Kind::kStock: return in_slice(scale.items, kStockSlice);
    case LoadUnit::Kind::kCustomers: return 2 * scale.customers;
    case LoadUnit::Kind::kOrders:  // an order and 10 lines on average, and some new_order rows
      return in_slice(scale.customers, kOrderSlice) * 12;
  }
  return 0;
}

std::vector<TableRows> Populate(const LoadUnit& u, const Scale& scale, uint64_t seed, const std::string& now) {
  Random r(SeedOf(seed, u));
  switch (u.kind) {
    case LoadUnit::Kind::kItems: return Items(r, u.part, scale);
    case LoadUnit::Kind::kWarehouse: return Warehouse(r, u.warehouse, scale);
    case LoadUnit::Kind::kStock: return Stock(r, u.warehouse, u.part, scale);
    case LoadUnit::Kind::kCustomers: return Customers(r, u.warehouse, u.district, scale, now);
    case LoadUnit::Kind::kOrders: return Orders(r, u, scale, seed, now);
  }
  return {};
}

}  // namespace farmdb::tpcc
