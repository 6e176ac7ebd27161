// SET / RESET / SHOW and SET TRANSACTION / SET SESSION CHARACTERISTICS.
#include <fmt/format.h>

#include "sql/parse/transform.h"
#include "sql/types/ascii.h"

namespace farmdb::sql {

std::expected<void, Error> Transformer::TransformTransactionOptions(PgQuery__Node** options, size_t n,
                                                                    std::optional<std::string>& isolation,
                                                                    std::optional<bool>& read_only) {
  for (size_t i = 0; i < n; ++i) {
    const PgQuery__DefElem& opt = *options[i]->def_elem;
    std::string_view name = opt.defname;
    const PgQuery__AConst* value = opt.arg != nullptr && opt.arg->node_case == PG_QUERY__NODE__NODE_A_CONST ? opt.arg->a_const : nullptr;
    if (name == "transaction_isolation" && value != nullptr && value->val_case == PG_QUERY__A__CONST__VAL_SVAL) {
      isolation = value->sval->sval;
    } else if (name == "transaction_read_only" && value != nullptr && value->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
      read_only = value->ival->ival != 0;
    } else if (name == "transaction_deferrable") {
      // DEFERRABLE only matters for SERIALIZABLE READ ONLY in PostgreSQL; FaRMv2 read-only
      // transactions never wait or abort for validation (§4.4), so it is accepted and has no effect.
    } else {
      return std::unexpected(NotSupported(fmt::format("transaction option \"{}\"", name), opt.location));
    }
  }
  return {};
}

std::expected<StatementNode, Error> Transformer::TransformSet(const PgQuery__VariableSetStmt& stmt) {
  SetStmt set;
  set.name = stmt.name != nullptr ? AsciiLower(stmt.name) : std::string();
  set.is_local = stmt.is_local;
  switch (stmt.kind) {
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE:
      set.kind = SetStmt::Kind::kValue;
      for (size_t i = 0; i < stmt.n_args; ++i) {
        const PgQuery__Node* arg = stmt.args[i];
        if (arg->node_case != PG_QUERY__NODE__NODE_A_CONST) return std::unexpected(NotSupported("this SET value"));
        const PgQuery__AConst& c = *arg->a_const;
        switch (c.val_case) {
          case PG_QUERY__A__CONST__VAL_SVAL:
            set.args.push_back(SetArg{c.sval->sval, true});
            break;
          case PG_QUERY__A__CONST__VAL_IVAL:
            set.args.push_back(SetArg{std::to_string(c.ival->ival), false});
            break;
          case PG_QUERY__A__CONST__VAL_FVAL:
            set.args.push_back(SetArg{c.fval->fval, false});
            break;
          default:
            return std::unexpected(NotSupported("this SET value", c.location));
        }
      }
      return set;
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT:
      set.kind = SetStmt::Kind::kDefault;
      return set;
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET:
      set.kind = SetStmt::Kind::kReset;
      return set;
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET_ALL:
      set.kind = SetStmt::Kind::kResetAll;
      return set;
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_MULTI: {
      if (set.name == "transaction snapshot") {
        // gram.y: SET TRANSACTION SNAPSHOT Sconst, the one argument a string constant.
        set.kind = SetStmt::Kind::kTransactionSnapshot;
        set.args.push_back(SetArg{stmt.args[0]->a_const->sval->sval, true});
        return set;
      }
      if (set.name == "transaction") set.kind = SetStmt::Kind::kTransaction;
      else if (set.name == "session characteristics") set.kind = SetStmt::Kind::kSessionCharacteristics;
      else return std::unexpected(NotSupported("SET " + std::string(stmt.name)));
      auto ok = TransformTransactionOptions(stmt.args, stmt.n_args, set.isolation, set.read_only);
      if (!ok) return std::unexpected(ok.error());
      return set;
    }
    default:
      return std::unexpected(NotSupported("SET ... FROM CURRENT"));
  }
}

ShowStmt Transformer::TransformShow(const PgQuery__VariableShowStmt& stmt) { return ShowStmt{AsciiLower(stmt.name)}; }

}  // namespace farmdb::sql
