// A small JSON value, parser and writer: enough for snarkjs's proof/public/vk files
// without an external library. Numbers keep their source text, so 254-bit integers
// (and anything else) round-trip exactly; object keys keep their order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"

namespace cuzk::formats {

class Json {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() = default;
  explicit Json(bool b) : type_(Type::kBool), bool_(b) {}
  Json(std::string s) : type_(Type::kString), text_(std::move(s)) {}  // NOLINT: strings are the common case
  Json(const char* s) : Json(std::string(s)) {}                      // NOLINT
  Json(Array a) : type_(Type::kArray), array_(std::move(a)) {}        // NOLINT
  Json(Object o) : type_(Type::kObject), object_(std::move(o)) {}     // NOLINT
  // A number from its JSON text; the caller guarantees it is a valid JSON number.
  static Json number(std::string text);
  static Json number(uint64_t v) { return number(std::to_string(v)); }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool as_bool() const { return bool_; }
  const std::string& as_string() const { return text_; }  // also a number's text
  const Array& as_array() const { return array_; }
  const Object& as_object() const { return object_; }
  Array& as_array() { return array_; }
  Object& as_object() { return object_; }

  // The member named `key` of an object, or nullptr (also for non-objects).
  const Json* find(std::string_view key) const;

  bool operator==(const Json& o) const;

  // Parses a whole document (surrounding whitespace allowed). Errors name line and column.
  static Result<Json> parse(std::string_view text);
  // indent < 0: compact; otherwise pretty-printed like JSON.stringify(v, null, indent).
  std::string dump(int indent = -1) const;

 private:
  void dump_to(std::string& out, int indent, int depth) const;

  Type type_ = Type::kNull;
  bool bool_ = false;
  std::string text_;
  Array array_;
  Object object_;
};

const char* json_type_name(Json::Type t);

// File helpers: the parse error is prefixed with the file name.
Result<Json> read_json_file(const std::string& path);
Status write_json_file(const std::string& path, const Json& value, int indent = 1);

}  // namespace cuzk::formats
