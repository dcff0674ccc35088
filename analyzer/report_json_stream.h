// The tables' streaming writer (report_json_model.h): each key straight into a text buffer, as
// nlohmann::ordered_json::dump(1) would write the object JsonWriter builds, byte for byte.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "json_text.h"
#include "report.h"
#include "report_json_model.h"

namespace mpa::report::json_model {

// The text a StreamWriter writes into: a buffer grown by doubling, written into without a
// length check per character (each write makes room for itself first).
class JsonText {
 public:
  JsonText() : buf_(std::size_t{1} << 16, '\0') {}
  void put(char c) {
    room(1);
    buf_[size_++] = c;
  }
  void put(std::string_view s) {
    room(s.size());
    std::memcpy(buf_.data() + size_, s.data(), s.size());
    size_ += s.size();
  }
  // "s" (printable ASCII but '"' and '\\')
  void quoted(std::string_view s) {
    room(s.size() + 2);
    char* p = buf_.data() + size_;
    *p = '"';
    std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    size_ += s.size() + 2;
  }
  // "key": (the key printable ASCII but '"' and '\\')
  void put_key(std::string_view key) {
    room(key.size() + 4);
    char* p = buf_.data() + size_;
    *p = '"';
    std::memcpy(p + 1, key.data(), key.size());
    std::memcpy(p + 1 + key.size(), "\": ", 3);
    size_ += key.size() + 4;
  }
  // ",\n" (or "\n" for the first) and `depth` spaces: where a member or item starts.
  void line(bool first, std::size_t depth) {
    static constexpr std::string_view kLines =
        ",\n                                                                ";
    if (depth + 2 <= kLines.size())
      return put(kLines.substr(first ? 1 : 0, depth + (first ? 1 : 2)));
    put(first ? "\n" : ",\n");
    room(depth);
    std::memset(buf_.data() + size_, ' ', depth);
    size_ += depth;
  }
  std::string_view view() const { return {buf_.data(), size_}; }
  std::size_t size() const { return size_; }
  void clear() { size_ = 0; }

 private:
  void room(std::size_t n) {
    if (size_ + n > buf_.size()) [[unlikely]]
      grow(n);
  }
  [[gnu::noinline]] void grow(std::size_t n) { buf_.resize(std::max(2 * buf_.size(), size_ + n)); }
  std::string buf_;
  std::size_t size_ = 0;
};

// dump(1): "{" then each member on a line of its own, indented one space per nesting level,
// "key": value; "}" on a line at the object's own level ("{}" when empty); arrays alike.
// Strings of printable ASCII (no '"' or '\\') are written as they are; any other string goes
// through nlohmann's own dump, so that its escapes (control characters, UTF-8 kept as is) and
// its rule for invalid UTF-8 (it throws) stay those of the writer that builds objects. Values
// that are neither flags, integers nor text (doubles, ordered_json) go through nlohmann too.
class StreamWriter {
 public:
  // A tally's labels, each written once as its key ("label": ): they are the same for every
  // connection, and making them (fmt) cost more than the rest of the tally.
  class Labels {
   public:
    template <typename Label>
    const std::vector<std::string>& of(std::string_view tally, std::size_t n, Label label) {
      for (const auto& [name, keys] : known_)
        if (name == tally) return keys;
      std::vector<std::string> keys;
      for (std::size_t i = 0; i < n; ++i) {
        JsonText k;
        StreamWriter(k, nullptr, nullptr).text(std::string(label(i)));
        keys.push_back(std::string(k.view()) + ": ");
      }
      return known_.emplace_back(std::string(tally), std::move(keys)).second;
    }

   private:
    std::vector<std::pair<std::string, std::vector<std::string>>> known_;
  };

  // `labels`: kept from one object to the next (the tables' tallies are keyed by their name).
  StreamWriter(JsonText& out, const Policy* policy, Labels* labels)
      : out_(out), policy_(policy), labels_(labels) {}

  // A whole object at the current place (the depth of the value being written).
  template <typename T, typename Table>
  void write_object(const T& v, Table table) {
    begin('{');
    table(*this, v);
    end('}');
  }

  template <typename T>
  void field(std::string_view key, const T& v) {
    put_key(key);
    value(v);
  }
  template <typename T>
  void field_or(std::string_view key, const T& v, const T& /*absent*/) {
    field(key, v);
  }
  template <typename T>
  void nullable(std::string_view key, const T& v) {
    null_unless(key, v, v != T{});
  }
  template <typename T>
  void null_unless(std::string_view key, const T& v, bool shown) {
    put_key(key);
    if (shown) {
      value(v);
    } else {
      out_.put("null");
    }
  }
  template <typename T>
  void or_null(std::string_view key, const std::optional<T>& v) {
    put_key(key);
    if (v) {
      value(*v);
    } else {
      out_.put("null");
    }
  }
  template <typename T>
  void unsigned_or_null(std::string_view key, const std::optional<T>& v) {
    or_null(key, v);
  }
  template <typename T>
  void when_set(std::string_view key, const std::optional<T>& v) {
    if (v) field(key, *v);
  }
  template <typename Words, typename T>
  void spelled(std::string_view key, const T& v) {
    field(key, Words::spell(v));
  }
  template <typename F>
  void derived(std::string_view key, F f) {
    if constexpr (std::is_invocable_v<F, const Policy&>) {
      field(key, f(*policy_));
    } else {
      field(key, f());
    }
  }
  template <typename F>
  void written_if(bool written, F f) {
    if (written) f();
  }
  template <typename T, typename Table>
  void object(std::string_view key, const T& v, Table table) {
    put_key(key);
    write_object(v, table);
  }
  template <typename T, typename Table, typename F>
  void object_or(std::string_view key, const T& v, Table table, F /*fallback*/) {
    object(key, v, table);
  }
  template <typename T, typename Table>
  void optional_object(std::string_view key, const std::optional<T>& v, Table table) {
    if (v) object(key, *v, table);
  }
  template <typename T, typename Table>
  void inline_optional(const std::optional<T>& v, Table table) {
    if (v) table(*this, *v);
  }
  template <typename T, typename To, typename From, typename Table>
  void view(std::string_view key, const T& v, To to, From /*from*/, Table table) {
    object(key, to(v), table);
  }
  template <std::size_t N, typename Label>
  void tally(std::string_view key, const std::array<std::uint64_t, N>& counts, Label label,
             bool zeros) {
    const std::vector<std::string>& keys = labels_->of(key, N, label);
    put_key(key);
    begin('{');
    for (std::size_t i = 0; i < N; ++i) {
      if (!(zeros || counts[i])) continue;
      next_line();
      out_.put(keys[i]);
      value(counts[i]);
    }
    end('}');
  }
  template <typename T, typename Table>
  void list(std::string_view key, const std::vector<T>& items, Table table) {
    put_key(key);
    begin('[');
    for (const T& item : items) {
      next_line();
      write_object(item, table);
    }
    end(']');
  }
  bool diagnostic(std::string_view key, DiagId id) {
    field(key, info(id).name);
    return true;
  }
  template <typename Table>
  void rule(std::string_view key, const Suppression* rule, Table table, std::string_view /*id*/) {
    if (rule) object(key, *rule, table);
  }

 private:
  // The line of the next member or item of the object or array open.
  void next_line() {
    out_.line(first_, depth_);
    first_ = false;
  }
  void put_key(std::string_view key) {
    next_line();
    if (plain(key)) {
      out_.put_key(key);
    } else {
      text(key);
      out_.put(": ");
    }
  }
  void begin(char open) {
    out_.put(open);
    first_ = true;
    ++depth_;
  }
  void end(char close) {
    --depth_;
    if (!first_) out_.line(true, depth_);
    out_.put(close);
    first_ = false;  // the object or array is its parent's member
  }
  // Text written as it is between quotes: printable ASCII but '"' and '\\'.
  static bool plain(std::string_view s) {
    bool ok = true;
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      ok &= u >= 0x20 && u <= 0x7e && c != '"' && c != '\\';
    }
    return ok;
  }
  void text(std::string_view s) {
    if (plain(s)) {
      out_.quoted(s);
    } else {
      out_.put(nlohmann::ordered_json(std::string(s)).dump(-1, ' ', false, kInvalidUtf8));
    }
  }
  // An ordered_json written member by member (as dump(1) would); numbers that are not
  // integers are nlohmann's to write.
  void json_value(const nlohmann::ordered_json& j) {
    using Type = nlohmann::detail::value_t;
    switch (j.type()) {
      case Type::null:
        out_.put("null");
        return;
      case Type::boolean:
        return value(j.get<bool>());
      case Type::number_integer:
        return value(j.get<std::int64_t>());
      case Type::number_unsigned:
        return value(j.get<std::uint64_t>());
      case Type::string:
        return text(j.get_ref<const std::string&>());
      case Type::object:
        begin('{');
        for (const auto& [key, member] : j.items()) {
          put_key(key);
          json_value(member);
        }
        return end('}');
      case Type::array:
        begin('[');
        for (const auto& item : j) {
          next_line();
          json_value(item);
        }
        return end(']');
      default:
        out_.put(j.dump(-1, ' ', false, kInvalidUtf8));
        return;  // a double, a binary: no newline in them
    }
  }
  template <typename T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      out_.put(v ? "true" : "false");
    } else if constexpr (std::is_integral_v<T>) {
      char buf[24];
      const auto r = std::to_chars(buf, buf + sizeof buf, v);
      out_.put(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      text(std::string_view(v));
    } else if constexpr (std::is_same_v<T, nlohmann::ordered_json>) {
      json_value(v);
    } else {
      json_value(nlohmann::ordered_json(v));
    }
  }

  JsonText& out_;
  const Policy* policy_;
  Labels* labels_;
  std::size_t depth_ = 0;
  bool first_ = true;
};

}  // namespace mpa::report::json_model
