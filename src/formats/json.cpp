#include "formats/json.hpp"

#include <cstdio>

#include "formats/mapped_file.hpp"

namespace cuzk::formats {

namespace {

// Bounds recursion so hostile input cannot overflow the stack.
constexpr int kMaxDepth = 512;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<Json> document() {
    skip_ws();
    Json v;
    CUZK_RETURN_IF_ERROR(value(v, 0));
    skip_ws();
    if (pos_ != s_.size()) return error("unexpected text after the JSON value");
    return v;
  }

 private:
  Status error(const std::string& msg) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return invalid_argument("JSON line " + std::to_string(line) + " column " + std::to_string(col) + ": " + msg);
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool consume(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Status value(Json& out, int depth) {
    if (depth > kMaxDepth) return error("nesting deeper than " + std::to_string(kMaxDepth));
    switch (peek()) {
      case '{': return object(out, depth);
      case '[': return array(out, depth);
      case '"': {
        std::string s;
        CUZK_RETURN_IF_ERROR(string(s));
        out = Json(std::move(s));
        return Status::ok();
      }
      case 't':
        if (consume("true")) return out = Json(true), Status::ok();
        break;
      case 'f':
        if (consume("false")) return out = Json(false), Status::ok();
        break;
      case 'n':
        if (consume("null")) return out = Json(), Status::ok();
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number(out);
    }
    return at_end() ? error("unexpected end of input") : error(std::string("unexpected character '") + peek() + "'");
  }

  Status number(Json& out) {
    size_t start = pos_;
    auto digits = [&] {
      size_t n = 0;
      while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_, ++n;
      return n;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return error("malformed number");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) return error("malformed number: no digits after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) return error("malformed number: no exponent digits");
    }
    out = Json::number(std::string(s_.substr(start, pos_ - start)));
    return Status::ok();
  }

  Status hex4(uint32_t& cp) {
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      uint32_t d;
      if (c >= '0' && c <= '9') d = uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') d = uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') d = uint32_t(c - 'A' + 10);
      else return error("bad \\u escape");
      cp = cp * 16 + d;
      ++pos_;
    }
    return Status::ok();
  }

  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  Status string(std::string& out) {
    ++pos_;  // opening quote
    for (;;) {
      if (at_end()) return error("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return Status::ok();
      if (static_cast<unsigned char>(c) < 0x20) return error("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) return error("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          CUZK_RETURN_IF_ERROR(hex4(cp));
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t lo = 0;
            if (!consume("\\u")) return error("unpaired surrogate in \\u escape");
            CUZK_RETURN_IF_ERROR(hex4(lo));
            if (lo < 0xDC00 || lo >= 0xE000) return error("bad low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return error("unpaired surrogate in \\u escape");
          }
          put_utf8(out, cp);
          break;
        }
        default: return error(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  Status array(Json& out, int depth) {
    ++pos_;
    Json::Array items;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      out = Json(std::move(items));
      return Status::ok();
    }
    for (;;) {
      skip_ws();
      Json v;
      CUZK_RETURN_IF_ERROR(value(v, depth + 1));
      items.push_back(std::move(v));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() == ']') {
        ++pos_;
        out = Json(std::move(items));
        return Status::ok();
      } else {
        return error("expected ',' or ']' in array");
      }
    }
  }

  Status object(Json& out, int depth) {
    ++pos_;
    Json::Object members;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      out = Json(std::move(members));
      return Status::ok();
    }
    for (;;) {
      skip_ws();
      if (peek() != '"') return error("expected a string key in object");
      std::string key;
      CUZK_RETURN_IF_ERROR(string(key));
      skip_ws();
      if (peek() != ':') return error("expected ':' after object key");
      ++pos_;
      skip_ws();
      Json v;
      CUZK_RETURN_IF_ERROR(value(v, depth + 1));
      members.emplace_back(std::move(key), std::move(v));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() == '}') {
        ++pos_;
        out = Json(std::move(members));
        return Status::ok();
      } else {
        return error("expected ',' or '}' in object");
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

void escape_into(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", unsigned(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

const char* json_type_name(Json::Type t) {
  switch (t) {
    case Json::Type::kNull: return "null";
    case Json::Type::kBool: return "boolean";
    case Json::Type::kNumber: return "number";
    case Json::Type::kString: return "string";
    case Json::Type::kArray: return "array";
    case Json::Type::kObject: return "object";
  }
  return "unknown";
}

Json Json::number(std::string text) {
  Json j;
  j.type_ = Type::kNumber;
  j.text_ = std::move(text);
  return j;
}

const Json* Json::find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const auto& [k, v] : object_) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool Json::operator==(const Json& o) const {
  if (type_ != o.type_) return false;
  switch (type_) {
    case Type::kNull: return true;
    case Type::kBool: return bool_ == o.bool_;
    case Type::kNumber:
    case Type::kString: return text_ == o.text_;
    case Type::kArray: return array_ == o.array_;
    case Type::kObject: return object_ == o.object_;
  }
  return false;
}

Result<Json> Json::parse(std::string_view text) { return Parser(text).document(); }

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

void Json::dump_to(std::string& out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent) * size_t(d), ' ');
  };
  switch (type_) {
    case Type::kNull: out += "null"; return;
    case Type::kBool: out += bool_ ? "true" : "false"; return;
    case Type::kNumber: out += text_; return;
    case Type::kString: escape_into(out, text_); return;
    case Type::kArray:
      if (array_.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < array_.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        array_[i].dump_to(out, indent, depth + 1);
      }
      newline(depth);
      out += ']';
      return;
    case Type::kObject:
      if (object_.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t i = 0; i < object_.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        escape_into(out, object_[i].first);
        out += indent < 0 ? ":" : ": ";
        object_[i].second.dump_to(out, indent, depth + 1);
      }
      newline(depth);
      out += '}';
      return;
  }
}

Result<Json> read_json_file(const std::string& path) {
  CUZK_ASSIGN_OR_RETURN(MappedFile f, MappedFile::open(path));
  std::string_view text(reinterpret_cast<const char*>(f.data()), f.size());
  auto v = Json::parse(text);
  if (!v) return v.status().with_context(file_label(path));
  return v;
}

Status write_json_file(const std::string& path, const Json& value, int indent) {
  std::string text = value.dump(indent);
  text += '\n';
  return write_file(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

}  // namespace cuzk::formats
