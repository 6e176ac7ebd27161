// Index choices. FaRM's TPC-C keeps point lookups in hash tables and uses B-trees only where a
// transaction needs a range or an order. The DDL both systems accept limits what can follow it:
// a PRIMARY KEY is a B-tree on farmdb (as on PostgreSQL), and CREATE INDEX ... USING hash takes
// one column and cannot be UNIQUE on either system. Every TPC-C key but item's and warehouse's
// is composite, so point lookups go through the B-tree primary keys; the B-trees the
// transactions need for ranges and order are:
//   new_order by district     primary key (no_w_id, no_d_id, no_o_id): Delivery's oldest order
//   order_line by order       primary key prefix (ol_w_id, ol_d_id, ol_o_id): Order-Status,
//                             Delivery, and Stock-Level's last 20 orders
//   orders by customer        orders_customer (o_w_id, o_d_id, o_c_id, o_id): Order-Status
//   customer by last name     customer_last (c_w_id, c_d_id, c_last, c_first): Payment and
//                             Order-Status by name, ordered by c_first
// item is the one table read by a single-column key on the hot path (15 lookups per New-Order),
// and the one that gets a hash index: it has no PRIMARY KEY, so the planner of either system
// takes the hash index for i_id = $1 (a unique B-tree primary key would win over it).
#include "tpcc/schema.h"

#include <array>

namespace farmdb::tpcc {
namespace {

constexpr std::string_view kTables[] = {"item",   "warehouse", "district",  "customer", "history",
                                                     "orders", "new_order", "order_line", "stock"};

constexpr std::string_view kStatements[] = {
    "DROP TABLE IF EXISTS order_line",
    "DROP TABLE IF EXISTS new_order",
    "DROP TABLE IF EXISTS orders",
    "DROP TABLE IF EXISTS history",
    "DROP TABLE IF EXISTS customer",
    "DROP TABLE IF EXISTS stock",
    "DROP TABLE IF EXISTS district",
    "DROP TABLE IF EXISTS warehouse",
    "DROP TABLE IF EXISTS item",
    R"(CREATE TABLE warehouse (
  w_id int NOT NULL, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
  w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), w_ytd numeric(12,2),
  PRIMARY KEY (w_id)))",
    R"(CREATE TABLE district (
  d_id int NOT NULL, d_w_id int NOT NULL, d_name varchar(10), d_street_1 varchar(20),
  d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4,4),
  d_ytd numeric(12,2), d_next_o_id int,
  PRIMARY KEY (d_w_id, d_id)))",
    R"(CREATE TABLE customer (
  c_id int NOT NULL, c_d_id int NOT NULL, c_w_id int NOT NULL, c_first varchar(16), c_middle char(2),
  c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20),
  c_state char(2), c_zip char(9), c_phone char(16), c_since timestamp, c_credit char(2),
  c_credit_lim numeric(12,2), c_discount numeric(4,4), c_balance numeric(12,2),
  c_ytd_payment numeric(12,2), c_payment_cnt int, c_delivery_cnt int, c_data varchar(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)))",
    R"(CREATE TABLE history (
  h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamp,
  h_amount numeric(6,2), h_data varchar(24)))",
    R"(CREATE TABLE new_order (
  no_o_id int NOT NULL, no_d_id int NOT NULL, no_w_id int NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)))",
    R"(CREATE TABLE orders (
  o_id int NOT NULL, o_d_id int NOT NULL, o_w_id int NOT NULL, o_c_id int, o_entry_d timestamp,
  o_carrier_id int, o_ol_cnt int, o_all_local int,
  PRIMARY KEY (o_w_id, o_d_id, o_id)))",
    R"(CREATE TABLE order_line (
  ol_o_id int NOT NULL, ol_d_id int NOT NULL, ol_w_id int NOT NULL, ol_number int NOT NULL,
  ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp, ol_quantity int,
  ol_amount numeric(6,2), ol_dist_info char(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)))",
    R"(CREATE TABLE item (
  i_id int NOT NULL, i_im_id int, i_name varchar(24), i_price numeric(5,2), i_data varchar(50)))",
    R"(CREATE TABLE stock (
  s_i_id int NOT NULL, s_w_id int NOT NULL, s_quantity int, s_dist_01 char(24), s_dist_02 char(24),
  s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24),
  s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24), s_ytd int,
  s_order_cnt int, s_remote_cnt int, s_data varchar(50),
  PRIMARY KEY (s_w_id, s_i_id)))",
    "CREATE INDEX item_id ON item USING hash (i_id)",
    "CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)",
    "CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
};

}  // namespace

std::span<const std::string_view> SchemaStatements() { return kStatements; }
std::span<const std::string_view> TableNames() { return kTables; }

}  // namespace farmdb::tpcc
