#include "sql/bind/overload.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "sql/bind/binder.h"

namespace farmdb::sql {
namespace {

enum class Category { kBool, kNumeric, kString, kDateTime, kUser, kPseudo };

Category CategoryOf(TypeId t) {
  if (t == TypeId::kBool) return Category::kBool;
  if (IsNumeric(t)) return Category::kNumeric;
  if (IsString(t)) return Category::kString;
  if (t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz) return Category::kDateTime;
  if (t == TypeId::kBytea) return Category::kUser;
  return Category::kPseudo;
}

// pg_type.typispreferred among farmdb's types.
bool IsPreferred(TypeId t) {
  return t == TypeId::kFloat8 || t == TypeId::kText || t == TypeId::kTimestampTz || t == TypeId::kBool;
}

bool Fits(const OverloadCandidate& c, std::span<const TypeId> inputs) {
  // VARIADIC takes at least one argument.
  if (c.variadic_any ? inputs.size() <= c.args.size() : inputs.size() != c.args.size()) return false;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (inputs[i] != TypeId::kUnknown && !ImplicitlyCastable(inputs[i], c.args[i])) return false;
  }
  return true;
}

// Keeps the candidates with the highest score.
template <typename Score>
void KeepBest(std::vector<int>& kept, Score score) {
  int best = -1;
  for (int i : kept) best = std::max(best, score(i));
  std::erase_if(kept, [&](int i) { return score(i) != best; });
}

}  // namespace

OverloadChoice SelectOverload(std::span<const OverloadCandidate> candidates, std::span<const TypeId> inputs) {
  std::vector<int> kept;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (Fits(candidates[i], inputs)) kept.push_back(static_cast<int>(i));
  }
  auto decided = [&]() -> std::optional<OverloadChoice> {
    if (kept.empty()) return OverloadChoice{};
    if (kept.size() == 1) return OverloadChoice{kept[0], false};
    return std::nullopt;
  };
  if (auto d = decided()) return *d;
  auto fixed = [&](int c) { return candidates[c].args.size(); };
  // Most exact matches, then most positions taking the input's type or a preferred one.
  KeepBest(kept, [&](int c) {
    int n = 0;
    for (size_t i = 0; i < fixed(c); ++i) n += inputs[i] != TypeId::kUnknown && inputs[i] == candidates[c].args[i];
    return n;
  });
  if (auto d = decided()) return *d;
  KeepBest(kept, [&](int c) {
    int n = 0;
    for (size_t i = 0; i < fixed(c); ++i) {
      TypeId t = candidates[c].args[i];
      n += inputs[i] != TypeId::kUnknown && (inputs[i] == t || IsPreferred(t));
    }
    return n;
  });
  if (auto d = decided()) return *d;
  // Unknown literals: the string category if any candidate takes one there, else the one
  // category all candidates agree on; within it the preferred type if any candidate has it.
  bool any_unknown = false;
  std::vector<int> narrowed = kept;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != TypeId::kUnknown) continue;
    any_unknown = true;
    std::optional<Category> slot;
    bool conflict = false, has_preferred = false;
    for (int c : kept) {
      if (i >= fixed(c)) continue;
      TypeId t = candidates[c].args[i];
      Category cat = CategoryOf(t);
      if (!slot || cat == *slot) {
        slot = cat;
        has_preferred |= IsPreferred(t);
      } else if (cat == Category::kString) {
        slot = cat;
        has_preferred = IsPreferred(t);
      } else {
        conflict = true;
      }
    }
    if (!slot) continue;
    if (conflict && *slot != Category::kString) return OverloadChoice{-1, true};
    std::erase_if(narrowed, [&](int c) {
      if (i >= fixed(c)) return false;
      TypeId t = candidates[c].args[i];
      return CategoryOf(t) != *slot || (has_preferred && !IsPreferred(t));
    });
  }
  if (!any_unknown) return OverloadChoice{-1, true};
  if (!narrowed.empty()) kept = narrowed;
  if (auto d = decided()) return *d;
  // Known inputs all of one type: take the unknown ones as that type too.
  std::optional<TypeId> known;
  for (TypeId t : inputs) {
    if (t == TypeId::kUnknown) continue;
    if (known && *known != t) return OverloadChoice{-1, true};
    known = t;
  }
  if (known) {
    std::erase_if(kept, [&](int c) {
      for (size_t i = 0; i < fixed(c); ++i) {
        if (inputs[i] == TypeId::kUnknown && !ImplicitlyCastable(*known, candidates[c].args[i])) return true;
      }
      return false;
    });
    if (kept.size() == 1) return OverloadChoice{kept[0], false};
  }
  return OverloadChoice{-1, true};
}

}  // namespace farmdb::sql
