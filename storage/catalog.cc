#include "storage/catalog.h"

#include "storage/catalog_store.h"

namespace farmdb::storage {

namespace {

std::unexpected<CatalogError> StorageFailure(StorageError e) {
  return std::unexpected(CatalogError{CatalogError::Code::kStorage, e, {}});
}

}  // namespace

CatalogResult<Catalog> Catalog::Bootstrap(txn::Txn& t, const BootstrapOptions& options,
                                          CatalogCache* cache) {
  CatalogRoot root;
  root.version = {1, t.id()};
  std::string probe = EncodeCatalogRoot(root);
  auto addr = t.Alloc(probe.size());
  if (!addr) return StorageFailure({StorageError::Code::kTxn, addr.error()});
  for (size_t i = 0; i < kSystemTables; ++i) {
    auto table = SystemTable::Create(t, static_cast<SystemTableId>(i), &cache->btree_cache());
    if (!table) return StorageFailure(table.error());
    root.tables[i] = table->root();
  }
  auto open = [&](SystemTableId id) {
    return SystemTable::Open(id, root.tables[static_cast<size_t>(id)], &cache->btree_cache());
  };
  std::vector<std::pair<SystemTableId, SystemRow>> rows = {
      {SystemTableId::kNamespace, NamespaceRow({kPgCatalogNamespace, "pg_catalog"})},
      {SystemTableId::kNamespace, NamespaceRow({kPublicNamespace, "public"})},
      {SystemTableId::kAuthId, RoleRow({kBootstrapSuperuser, options.superuser, true, true, ""})},
  };
  for (const auto& [id, row] : rows) {
    if (auto r = open(id).Insert(t, row); !r) return StorageFailure(r.error());
  }
  if (auto w = WriteCatalogRoot(t, *addr, root); !w) return StorageFailure(w.error());
  return Catalog(*addr, cache);
}

CatalogResult<Catalog::Loaded> Catalog::Load(txn::Txn& t) const {
  auto root = ReadCatalogRoot(t, root_);
  if (!root) return StorageFailure(root.error());
  if (SnapshotPtr s = cache_->Get(root->version)) return Loaded{*root, std::move(s)};
  auto s = LoadSnapshot(t, *root, &cache_->btree_cache());
  if (!s) return StorageFailure(s.error());
  cache_->CountLoad();
  cache_->Put(*s);
  return Loaded{*root, std::move(*s)};
}

CatalogResult<SnapshotPtr> Catalog::Snapshot(txn::Txn& t) const {
  auto loaded = Load(t);
  if (!loaded) return std::unexpected(loaded.error());
  return std::move(loaded->snapshot);
}

CatalogResult<CatalogVersion> Catalog::Version(txn::Txn& t) const {
  auto root = ReadCatalogRoot(t, root_);
  if (!root) return StorageFailure(root.error());
  return root->version;
}

}  // namespace farmdb::storage
