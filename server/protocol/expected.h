// Expected<T, E>: std::expected where the standard library provides it, else a minimal stand-in.
//
// Why: the protocol codec is also compiled by clang-14 for the libFuzzer target, and clang-14
// cannot instantiate libstdc++ 12's std::expected (it needs C++20 conditionally trivial special
// members, __cpp_concepts >= 202002). Under GCC 12 this is exactly std::expected. The stand-in
// offers only what the codec uses: has_value, bool conversion, *, ->, value, error.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>
#include <version>

#if defined(__cpp_lib_expected) || (__has_include(<expected>) && defined(__cpp_concepts) && \
                                     __cpp_concepts >= 202002L)
#include <expected>
#define FARMDB_HAS_STD_EXPECTED 1
#endif

namespace farmdb::server {

#if defined(FARMDB_HAS_STD_EXPECTED)
template <class T, class E>
using Expected = std::expected<T, E>;
template <class E>
using Unexpected = std::unexpected<E>;
#else
template <class E>
class Unexpected {
 public:
  explicit Unexpected(E error) : error_(std::move(error)) {}
  E& error() { return error_; }

 private:
  E error_;
};
template <class E>
Unexpected(E) -> Unexpected<E>;

template <class T, class E>
class Expected {
 public:
  template <class U = T,
            class = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                     !std::is_same_v<std::decay_t<U>, Expected>>>
  Expected(U&& value) : v_(std::in_place_index<0>, std::forward<U>(value)) {}
  template <class G>
  Expected(Unexpected<G> error) : v_(std::in_place_index<1>, std::move(error.error())) {}
  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};
#endif

}  // namespace farmdb::server
