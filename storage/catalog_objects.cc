// DDL for objects outside tables: sequences, roles, and per-role/database setting defaults.
#include "storage/catalog_ddl.h"

namespace farmdb::storage {

CatalogResult<Oid> Catalog::CreateSequence(txn::Txn& t, const CreateSequenceDef& def) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  auto nsp = d->Namespace(def.nspname);
  if (!nsp) return std::unexpected(nsp.error());
  if (auto existing = d->snap().FindRelation((*nsp)->oid, def.relname)) {
    if (def.if_not_exists) return existing->oid;
    return Ddl::RelationExists(def.relname);
  }
  SequenceDesc seq{d->NewOid(), def.relname, (*nsp)->oid, {}, 0, 0};
  if (def.owned_by) {
    auto table = d->Table(def.owned_by->first);
    if (!table) return std::unexpected(table.error());
    int16_t attnum = def.owned_by->second;
    if (attnum < 1 || static_cast<size_t>(attnum) > (*table)->columns.size() ||
        (*table)->columns[attnum - 1].attisdropped) {
      return Ddl::Fail(Ddl::Code::kUndefined, "42703",
                       fmt::format("column {} of relation \"{}\" does not exist", attnum,
                                   (*table)->relname));
    }
    seq.owned_by_table = def.owned_by->first;
    seq.owned_by_attnum = attnum;
  }
  // The SQL layer words PostgreSQL's option errors (e.g. MINVALUE vs MAXVALUE) before calling.
  auto created = Sequence::Create(t, def.options);
  if (!created && created.error().code == StorageError::Code::kInvalidArgument) {
    return Ddl::Fail(Ddl::Code::kInvalid, "22023", "invalid sequence options");
  }
  if (!created) return Ddl::StorageFailure(created.error());
  seq.object = *created;
  if (auto r = d->Insert(SystemTableId::kSequence, SequenceRow(seq)); !r) {
    return std::unexpected(r.error());
  }
  if (auto r = d->Finish(); !r) return std::unexpected(r.error());
  return seq.oid;
}

CatalogResult<void> Catalog::DropSequence(txn::Txn& t, Oid sequence) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  const SequenceDesc* seq = d->snap().SequenceByOid(sequence);
  if (!seq) {
    return Ddl::Fail(Ddl::Code::kUndefined, "42P01",
                     fmt::format("sequence with OID {} does not exist", sequence));
  }
  if (auto r = Sequence::Drop(t, seq->object); !r) return Ddl::StorageFailure(r.error());
  if (auto r = d->Erase(SystemTableId::kSequence, OidKey(sequence)); !r) return r;
  return d->Finish();
}

CatalogResult<Oid> Catalog::CreateRole(txn::Txn& t, const RoleDef& def) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  if (d->snap().FindRole(def.rolname)) {
    return Ddl::Fail(Ddl::Code::kDuplicate, "42710",
                     fmt::format("role \"{}\" already exists", def.rolname));
  }
  RoleDesc role{d->NewOid(), def.rolname, def.rolsuper, def.rolcanlogin, def.rolpassword};
  if (auto r = d->Insert(SystemTableId::kAuthId, RoleRow(role)); !r) {
    return std::unexpected(r.error());
  }
  if (auto r = d->Finish(); !r) return std::unexpected(r.error());
  return role.oid;
}

CatalogResult<void> Catalog::DropRole(txn::Txn& t, std::string_view rolname) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  const RoleDesc* role = d->snap().FindRole(rolname);
  if (!role) {
    return Ddl::Fail(Ddl::Code::kUndefined, "42704",
                     fmt::format("role \"{}\" does not exist", rolname));
  }
  if (role->oid == kBootstrapSuperuser) {
    return Ddl::Fail(Ddl::Code::kInvalid, "2BP01",
                     fmt::format("cannot drop role {} because it is required by the database "
                                 "system", rolname));
  }
  if (auto r = d->Erase(SystemTableId::kAuthId, OidKey(role->oid)); !r) return r;
  // Its ALTER ROLE ... SET defaults go too (PostgreSQL's DropSetting).
  for (const SettingDesc& s : d->snap().settings()) {
    if (s.setrole != role->oid) continue;
    if (auto r = d->Erase(SystemTableId::kSetting, SettingKey(s.setdatabase, s.setrole, s.name));
        !r) {
      return r;
    }
  }
  return d->Finish();
}

CatalogResult<void> Catalog::SetDefault(txn::Txn& t, Oid setdatabase, Oid setrole,
                                        std::string_view name, std::optional<std::string> value) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  if (setrole != 0 && !d->snap().RoleByOid(setrole)) {
    return Ddl::Fail(Ddl::Code::kUndefined, "42704",
                     fmt::format("role with OID {} does not exist", setrole));
  }
  std::string key(name);
  if (auto r = d->Erase(SystemTableId::kSetting, SettingKey(setdatabase, setrole, key)); !r) {
    return r;
  }
  if (value) {
    SettingDesc s{setdatabase, setrole, key, std::move(*value)};
    if (auto r = d->Insert(SystemTableId::kSetting, SettingRow(s)); !r) return r;
  }
  return d->Finish();
}

}  // namespace farmdb::storage
