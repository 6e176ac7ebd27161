// The registry of system views (system_view.h).
#include "sql/system/system_view.h"

namespace farmdb::sql {

const SystemView* FindSystemView(std::string_view /*schema*/, std::string_view /*name*/) {
  // No views are generated yet; the pg_catalog work fills the registry.
  return nullptr;
}

}  // namespace farmdb::sql
