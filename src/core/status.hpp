// Errors are values: Status carries a message a user can act on; Result<T> is a value or a Status.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace cuzk {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // malformed input: bad length, flags, value out of range
  kNotFound,         // a file, key or circuit that does not exist
  kDataLoss,         // a file that is truncated or corrupt
  kOutOfRange,       // a value outside what the format or field allows
  kFailedPrecondition,
  kResourceExhausted,  // out of host or device memory
  kInternal,
  kUnavailable,
  kDeviceLost,  // a sticky device fault: the device serves nothing until it has been reset
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string to_string() const;

  // Prefixes the message with where the error happened ("zkey: section 9: ...").
  Status with_context(const std::string& where) const {
    if (is_ok()) return *this;
    return {code_, where + ": " + message_};
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status data_loss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status out_of_range(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status failed_precondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design, like absl::StatusOr
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).is_ok()); }  // NOLINT

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const {
    static const Status kOk;
    return is_ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace cuzk

// Early-return helpers for functions that return Status or Result<T>.
#define CUZK_RETURN_IF_ERROR(expr)              \
  do {                                          \
    ::cuzk::Status cuzk_status_ = (expr);       \
    if (!cuzk_status_.is_ok()) return cuzk_status_; \
  } while (0)

#define CUZK_CONCAT_INNER(a, b) a##b
#define CUZK_CONCAT(a, b) CUZK_CONCAT_INNER(a, b)
#define CUZK_ASSIGN_OR_RETURN(lhs, expr) CUZK_ASSIGN_OR_RETURN_IMPL(CUZK_CONCAT(cuzk_result_, __LINE__), lhs, expr)
#define CUZK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.is_ok()) return tmp.status();           \
  lhs = std::move(tmp).value()
