// Reads the known-answer file written by gen_vectors.mjs and turns its tokens into
// cuzk values and back, so a test compares our results with noble's text exactly.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ec/curves.hpp"
#include "ff/decimal.hpp"
#include "ff/fields.hpp"

namespace cuzk::interop {

using Tokens = std::vector<std::string>;

struct Vector {
  size_t line = 0;
  Tokens args;
  Tokens results;
};

class VectorFile {
 public:
  // The file the CTest fixture wrote; its path comes in CUZK_NOBLE_VECTORS.
  static const VectorFile& get() {
    static const VectorFile file(path_from_env());
    return file;
  }

  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  // Every vector `curve group op ...`, in file order.
  std::vector<Vector> select(const std::string& curve, const std::string& group, const std::string& op) const {
    auto it = vectors_.find({curve, group, op});
    return it == vectors_.end() ? std::vector<Vector>{} : it->second;
  }

 private:
  static std::string path_from_env() {
    const char* p = std::getenv("CUZK_NOBLE_VECTORS");
    return p ? p : "";
  }

  explicit VectorFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) {
      error_ = "CUZK_NOBLE_VECTORS is not set (run through ctest, which generates the file first)";
      return;
    }
    std::ifstream in(path_);
    if (!in) {
      error_ = path_ + ": cannot open";
      return;
    }
    std::string text;
    for (size_t line = 1; std::getline(in, text); ++line) {
      if (text.empty() || text[0] == '#') continue;
      std::istringstream words(text);
      Tokens head;
      Vector v;
      v.line = line;
      bool after_eq = false;
      for (std::string w; words >> w;) {
        if (w == "=") {
          after_eq = true;
        } else if (head.size() < 3) {
          head.push_back(w);
        } else {
          (after_eq ? v.results : v.args).push_back(w);
        }
      }
      if (head.size() < 3 || !after_eq) {
        error_ = path_ + ":" + std::to_string(line) + ": expected `curve group op args... = results...`";
        return;
      }
      vectors_[{head[0], head[1], head[2]}].push_back(std::move(v));
    }
  }

  std::string path_;
  std::string error_;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<Vector>> vectors_;
};

// Text form of our values, matching the generator's layout.
template <class P>
void put(Tokens& out, const ff::Fp<P>& x) {
  out.push_back(ff::field_to_decimal(x));
}
template <class Cfg>
void put(Tokens& out, const ff::Fp2<Cfg>& x) {
  put(out, x.c0);
  put(out, x.c1);
}
template <class Cfg>
void put(Tokens& out, const ff::Fp6<Cfg>& x) {
  put(out, x.c0);
  put(out, x.c1);
  put(out, x.c2);
}
template <class Cfg>
void put(Tokens& out, const ff::Fp12<Cfg>& x) {
  put(out, x.c0);
  put(out, x.c1);
}
template <class C>
void put(Tokens& out, const ec::Affine<C>& p) {
  put(out, p.x);
  put(out, p.y);
}
template <class T>
Tokens text(const T& x) {
  Tokens out;
  put(out, x);
  return out;
}

// Parses the next tokens at `pos` into x; false on a malformed or out-of-range token.
template <class P>
bool get(const Tokens& in, size_t& pos, ff::Fp<P>& x) {
  return pos < in.size() && ff::field_from_decimal(in[pos++], x);
}
template <class Cfg>
bool get(const Tokens& in, size_t& pos, ff::Fp2<Cfg>& x) {
  return get(in, pos, x.c0) && get(in, pos, x.c1);
}
template <class Cfg>
bool get(const Tokens& in, size_t& pos, ff::Fp6<Cfg>& x) {
  return get(in, pos, x.c0) && get(in, pos, x.c1) && get(in, pos, x.c2);
}
template <class Cfg>
bool get(const Tokens& in, size_t& pos, ff::Fp12<Cfg>& x) {
  return get(in, pos, x.c0) && get(in, pos, x.c1);
}

template <class C>
bool get(const Tokens& in, size_t& pos, ec::Affine<C>& p) {
  return get(in, pos, p.x) && get(in, pos, p.y);
}

inline std::string where(const Vector& v) { return VectorFile::get().path() + ":" + std::to_string(v.line); }

}  // namespace cuzk::interop
