#include <gtest/gtest.h>

#include "sql/exec/evaluate.h"

namespace farmdb::sql {
namespace {

std::shared_ptr<const storage::TableDescriptor> Descriptor() {
  auto d = std::make_shared<storage::TableDescriptor>();
  d->primary.root = txn::Addr::Of(1, 64);
  return d;
}

// Statements of one session share a table's handle until the catalog gives the table a new
// descriptor or the session's machine caches differ.
TEST(DatabaseAccessTest, TableForKeepsOneHandlePerDescriptorAndCaches) {
  DatabaseAccess db;
  storage::BTreeCache btree;
  db.caches.btree = &btree;
  auto d1 = Descriptor(), d2 = Descriptor();
  auto t1 = db.TableFor(d1);
  EXPECT_EQ(&t1->descriptor(), d1.get());
  EXPECT_EQ(db.TableFor(d1), t1);
  auto t2 = db.TableFor(d2);
  EXPECT_NE(t2, t1);
  EXPECT_EQ(&t2->descriptor(), d2.get());
  storage::BTreeCache other;
  db.caches.btree = &other;
  auto t3 = db.TableFor(d1);
  EXPECT_NE(t3, t1);
  EXPECT_EQ(t3->caches().btree, &other);
}

// Descriptors of old catalog versions do not pile up, and a holder's handle outlives the set
// starting afresh.
TEST(DatabaseAccessTest, TableForStartsAfreshPastItsBoundAndHoldersKeepTheirs) {
  DatabaseAccess db;
  auto first = Descriptor();
  auto held = db.TableFor(first);
  std::vector<std::shared_ptr<const storage::TableDescriptor>> later;
  for (int i = 0; i < 40; ++i) db.TableFor(later.emplace_back(Descriptor()));
  EXPECT_EQ(&held->descriptor(), first.get());
  EXPECT_NE(db.TableFor(first), held);  // made again: the first was dropped from the set
  EXPECT_EQ(db.TableFor(later.back()), db.TableFor(later.back()));
}

}  // namespace
}  // namespace farmdb::sql
