// 'name'::regclass and 'name'::regnamespace literals, resolved against the statement's catalog
// at bind time.
#include "sql/bind/binder.h"
#include "sql/system/catalog_functions.h"

namespace farmdb::sql {

std::expected<Value, Error> Binder::ParseCatalogNameLiteral(TypeId type, std::string_view text) {
  auto catalog = LoadCatalog();
  if (!catalog) return std::unexpected(catalog.error());
  if (*catalog == nullptr || !(*catalog)->snapshot) return ParseText(type, text, text_options_);
  SystemViewContext ctx{*(*catalog)->snapshot, {}, {}, (*catalog)->search_path, {}};
  return ParseTextWithCatalog(type, text, text_options_, &ctx);
}

}  // namespace farmdb::sql
