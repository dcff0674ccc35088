// The tables' streaming writer (report_json_model.h): each key straight into a text buffer, as
// nlohmann::ordered_json::dump(1) would write the object JsonWriter builds, byte for byte.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
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

// A member's key as a StreamWriter writes it: a table's keys are literals, checked when
// compiled (printable ASCII but '"' and '\\', at most kMost characters), so that they are
// copied without a look at each character; a key made at run time (RuntimeKey) is checked
// when made, and escaped by nlohmann where it is not plain. Small, and passed by value: where
// a table's member is written inline, the literal's address and size are constants, and the
// copy of `"key": ` a few stores (issue 44: a 48-octet array made on the stack for each key
// and copied from there cost more than the rest of the member).
class Key {
 public:
  static constexpr std::size_t kMost = 40;
  template <std::size_t N>
  consteval Key(const char (&key)[N]) : Key(std::string_view(key, N - 1)) {
    if (!plain_) throw "a table's key is printable ASCII but '\"' and '\\', 40 characters at most";
  }
  Key(RuntimeKey key) : Key(std::string_view(key.text)) {}
  explicit constexpr Key(std::string_view name)
      : name_(name.data()), size_(static_cast<std::uint32_t>(name.size())) {
    plain_ = name.size() <= kMost;
    for (const char c : name) plain_ = plain_ && c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
  }
  std::string_view name() const { return {name_, size_}; }
  bool plain() const { return plain_; }
  // `"key": ` (a plain key): at most kQuoted octets.
  static constexpr std::size_t kQuoted = kMost + 4;
  std::size_t quoted_size() const { return std::size_t{size_} + 4; }
  [[gnu::always_inline]] void quoted_to(char* to) const {
    *to = '"';
    std::memcpy(to + 1, name_, size_);
    std::memcpy(to + 1 + size_, "\": ", 3);
  }

 private:
  const char* name_;
  std::uint32_t size_;
  bool plain_ = false;
};

// The text a StreamWriter writes into: a buffer grown by doubling, written into without a
// length check per character (each write makes room for itself first).
class JsonText {
 public:
  JsonText() : buf_(std::size_t{1} << 16, '\0') {}
  [[gnu::always_inline]] void put(char c) {
    room(1);
    buf_[size_++] = c;
  }
  void put(std::string_view s) {
    room(s.size());
    std::memcpy(buf_.data() + size_, s.data(), s.size());
    size_ += s.size();
  }
  // "s" (printable ASCII but '"' and '\\'): from 4 to 32 octets (most of the report's text:
  // names, words, addresses, ids) copied as two overlapping pieces of a fixed size, no call.
  void quoted(std::string_view s) {
    const char* from = s.data();
    const std::size_t n = s.size();
    room(n + 18);
    char* p = buf_.data() + size_;
    *p = '"';
    if (n > 16 && n <= 32) {
      std::memcpy(p + 1, from, 16);
      std::memcpy(p + 1 + n - 16, from + n - 16, 16);
    } else if (n >= 8 && n <= 16) {
      std::memcpy(p + 1, from, 8);
      std::memcpy(p + 1 + n - 8, from + n - 8, 8);
    } else if (n >= 4 && n < 8) {
      std::memcpy(p + 1, from, 4);
      std::memcpy(p + 1 + n - 4, from + n - 4, 4);
    } else {
      std::memcpy(p + 1, from, n);
    }
    p[n + 1] = '"';
    size_ += n + 2;
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
  // ",\n" (or "\n" for the first) and `depth` spaces, then `"key": ` (a plain key): where a
  // member starts. The line is copied as sixteen octets and the key at its size, the end
  // then set back to where the text ends: inline, a few stores and no call (issue 44: the
  // keys' lines are most of the report's bytes).
  [[gnu::always_inline]] void line_key(bool first, std::size_t depth, Key key) {
    char* p;
    if (depth > kShortDepth) [[unlikely]] {
      line(first, depth);
      room(Key::kQuoted + kValueMost);
      p = buf_.data() + size_;
    } else {
      room(kShortLine + Key::kQuoted + kValueMost);
      p = buf_.data() + size_;
      std::memcpy(p, kLines.data() + (first ? 1 : 0), kShortLine);
      p += depth + (first ? 1 : 2);
    }
    key.quoted_to(p);
    size_ = static_cast<std::size_t>(p - buf_.data()) + key.quoted_size();
  }
  // An integer's decimal digits (one or two digits, the most frequent counts, inline and
  // without to_chars).
  template <typename T>
  [[gnu::always_inline]] void number(T v) {
    room(kValueMost);
    number_in_room(v);
  }
  // The same where room for it was made (line_key: a member's value after its key).
  template <typename T>
  [[gnu::always_inline]] void number_in_room(T v) {
    const auto u = static_cast<std::make_unsigned_t<T>>(v);  // (a negative one is large)
    if (u <= 9) {
      buf_[size_++] = static_cast<char>('0' + u);
      return;
    }
    if (u <= 99) {
      char* p = buf_.data() + size_;
      p[0] = static_cast<char>('0' + u / 10);
      p[1] = static_cast<char>('0' + u % 10);
      size_ += 2;
      return;
    }
    digits(v);
  }
  // ",\n" (or "\n" for the first) and `depth` spaces: where a member or item starts (copied
  // at a fixed size as in line_key).
  [[gnu::always_inline]] void line(bool first, std::size_t depth) {
    if (depth > kShortDepth) [[unlikely]]
      return deep_line(first, depth);
    room(kShortLine);
    std::memcpy(buf_.data() + size_, kLines.data() + (first ? 1 : 0), kShortLine);
    size_ += depth + (first ? 1 : 2);
  }
  // Room for a number or a flag (kValueMost), as line_key makes after a key.
  void value_room() { room(kValueMost); }
  // A literal, copied at its size.
  template <std::size_t N>
  [[gnu::always_inline]] void put_literal(const char (&s)[N]) {
    room(N - 1);
    std::memcpy(buf_.data() + size_, s, N - 1);
    size_ += N - 1;
  }
  // `n` octets from `from`, which holds at least kPadded readable octets when n is at most
  // that: then copied at that fixed size (the tallies' labels, padded: Memo).
  static constexpr std::size_t kPadded = 32;
  [[gnu::always_inline]] void put_padded(const char* from, std::size_t n) {
    if (n > kPadded) [[unlikely]]
      return put(std::string_view(from, n));
    room(kPadded);
    std::memcpy(buf_.data() + size_, from, kPadded);
    size_ += n;
  }
  // "true" or "false", copied at a fixed size.
  [[gnu::always_inline]] void flag(bool v) {
    room(kValueMost);
    flag_in_room(v);
  }
  [[gnu::always_inline]] void flag_in_room(bool v) {
    std::memcpy(buf_.data() + size_, v ? "true\0\0\0" : "false\0\0", 8);
    size_ += v ? 4 : 5;
  }
  std::string_view view() const { return {buf_.data(), size_}; }
  std::size_t size() const { return size_; }
  void clear() { size_ = 0; }

 private:
  static constexpr std::string_view kLines =
      ",\n                                                                ";
  // A number's digits or a flag, at most: line_key makes room for one after the key.
  static constexpr std::size_t kValueMost = 24;
  // A line of at most kShortLine octets, ",\n" and kShortDepth spaces: copied as one.
  static constexpr std::size_t kShortLine = 16;
  static constexpr std::size_t kShortDepth = kShortLine - 2;
  [[gnu::always_inline]] void room(std::size_t n) {
    if (size_ + n > buf_.size()) [[unlikely]]
      grow(n);
  }
  [[gnu::noinline]] void grow(std::size_t n) { buf_.resize(std::max(2 * buf_.size(), size_ + n)); }
  template <typename T>
  [[gnu::noinline]] void digits(T v) {
    const auto r = std::to_chars(buf_.data() + size_, buf_.data() + size_ + kValueMost, v);
    size_ = static_cast<std::size_t>(r.ptr - buf_.data());
  }
  [[gnu::noinline]] void deep_line(bool first, std::size_t depth) {
    if (depth + 2 <= kLines.size()) {
      room(kLines.size());
      std::memcpy(buf_.data() + size_, kLines.data() + (first ? 1 : 0), kLines.size() - 1);
      size_ += depth + (first ? 1 : 2);
      return;
    }
    put(first ? "\n" : ",\n");
    room(depth);
    std::memset(buf_.data() + size_, ' ', depth);
    size_ += depth;
  }
  std::string buf_;
  std::size_t size_ = 0;
};

// dump(1): "{" then each member on a line of its own, indented one space per nesting level,
// "key": value; "}" on a line at the object's own level ("{}" when empty); arrays alike.
// Strings of printable ASCII (no '"' or '\\') are written as they are; any other string goes
// through nlohmann's own dump, so that its escapes (control characters, UTF-8 kept as is) and
// its rule for invalid UTF-8 (it throws) stay those of the writer that builds objects. Values
// that are neither flags, integers nor text (doubles but whole ones, ordered_json) go through
// nlohmann too. Addresses, MAC addresses and finding times are spelled here by hand, as
// to_string and utc_time spell them (issue 44: fmt and inet_ntop took most of the time).
class StreamWriter {
 public:
  // What is kept from one object to the next: a tally's labels, each written once as its key
  // ("label": ), the same for every connection (making them with fmt cost more than the rest
  // of the tally); the date and time of the last finding's second, as utc_time writes it.
  class Memo {
   public:
    // Each `"label": ` with its size, padded to JsonText::kPadded octets (put_padded).
    using Labels = std::vector<std::pair<std::string, std::size_t>>;
    template <typename Label>
    const Labels& of(std::string_view tally, std::size_t n, Label label) {
      for (const Known& k : known_)  // (a table's key: the same literal each time)
        if (k.at == tally.data() && k.name.size() == tally.size()) return k.labels;
      for (const Known& k : known_)
        if (k.name == tally) return k.labels;
      Labels keys;
      for (std::size_t i = 0; i < n; ++i) {
        JsonText k;
        StreamWriter(k, nullptr, nullptr).text(std::string(label(i)));
        std::string key = std::string(k.view()) + ": ";
        const std::size_t size = key.size();
        key.resize(std::max(size, JsonText::kPadded), ' ');
        keys.emplace_back(std::move(key), size);
      }
      return known_.emplace_back(Known{tally.data(), std::string(tally), std::move(keys)}).labels;
    }
    // utc_time(ns) up to its seconds ("2026-11-26T11:20:01"); the fraction is written after.
    std::string_view second_of(std::uint64_t ns) {
      const std::uint64_t second = ns / 1'000'000'000u;
      if (second != second_ || second_text_.empty()) {
        second_ = second;
        second_text_ = utc_time(ns);
        second_text_.resize(second_text_.size() - 8);  // ".123456Z"
      }
      return second_text_;
    }
    // identity_of(c), its startup words ("Request Rev 1 M=0 C=1 R=0; ...") spelled again only
    // where the connection's startup frames are not those of the last one: most connections
    // of a capture start alike, and spelling them was a fifth of the identity's cost. Who
    // the sides are and the port are taken as identity_of takes them.
    const ConnectionIdentity& identity(const ConnectionReport& c) {
      const ConnectionSummary& s = c.summary;
      if (!identity_ || s.request != request_ || s.reply != reply_) {
        identity_ = identity_of(c);
        request_ = s.request;
        reply_ = s.reply;
        return *identity_;
      }
      identity_->initiator = c.implementation(Direction::Initiator).identity();
      identity_->responder = c.implementation(Direction::Responder).identity();
      identity_->port = s.responder.port;
      return *identity_;
    }

   private:
    struct Known {
      const char* at;  // where the tally's key was
      std::string name;
      Labels labels;
    };
    std::vector<Known> known_;
    std::uint64_t second_ = 0;
    std::string second_text_;
    std::optional<ConnectionIdentity> identity_;
    std::optional<StartupFrame> request_, reply_;
  };

  // `memo`: kept from one object to the next.
  StreamWriter(JsonText& out, const Policy* policy, Memo* memo)
      : out_(out), policy_(policy), memo_(memo) {}

  // A whole object at the current place (the depth of the value being written).
  template <typename T, typename Table>
  void write_object(const T& v, Table table) {
    begin('{');
    table(*this, v);
    end('}');
  }

  template <typename T>
  [[gnu::always_inline]] void field(Key key, const T& v) {
    put_key(key);
    member_value(v);
  }
  template <typename T>
  [[gnu::always_inline]] void field_or(Key key, const T& v, const T& /*absent*/) {
    field(key, v);
  }
  template <typename T>
  [[gnu::always_inline]] void nullable(Key key, const T& v) {
    null_unless(key, v, v != T{});
  }
  template <typename T>
  [[gnu::always_inline]] void null_unless(Key key, const T& v, bool shown) {
    put_key(key);
    if (shown) {
      value(v);
    } else {
      out_.put_literal("null");
    }
  }
  template <typename T>
  [[gnu::always_inline]] void or_null(Key key, const std::optional<T>& v) {
    put_key(key);
    if (v) {
      value(*v);
    } else {
      out_.put_literal("null");
    }
  }
  template <typename T>
  [[gnu::always_inline]] void unsigned_or_null(Key key, const std::optional<T>& v) {
    or_null(key, v);
  }
  template <typename T>
  [[gnu::always_inline]] void when_set(Key key, const std::optional<T>& v) {
    if (v) field(key, *v);
  }
  template <typename Words, typename T>
  [[gnu::always_inline]] void spelled(Key key, const T& v) {
    put_key(key);
    spell(Words{}, v);
  }
  template <typename F>
  [[gnu::always_inline]] void derived(Key key, F f) {
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
  [[gnu::always_inline]] void object(Key key, const T& v, Table table) {
    put_key(key);
    write_object(v, table);
  }
  template <typename T, typename Table, typename F>
  [[gnu::always_inline]] void object_or(Key key, const T& v, Table table, F /*fallback*/) {
    object(key, v, table);
  }
  template <typename T, typename Table>
  [[gnu::always_inline]] void optional_object(Key key, const std::optional<T>& v, Table table) {
    if (v) object(key, *v, table);
  }
  template <typename T, typename Table>
  void inline_optional(const std::optional<T>& v, Table table) {
    if (v) table(*this, *v);
  }
  template <typename T, typename To, typename From, typename Table>
  [[gnu::always_inline]] void view(Key key, const T& v, To to, From /*from*/, Table table) {
    object(key, to(v), table);
  }
  template <typename From, typename Table>
  void view(Key key, const ConnectionReport& c, ConnectionIdentity (*to)(const ConnectionReport&),
            From /*from*/, Table table) {
    if (to == &identity_of) return object(key, memo_->identity(c), table);
    object(key, to(c), table);
  }
  template <std::size_t N, typename Label>
  [[gnu::always_inline]] void tally(Key key, const std::array<std::uint64_t, N>& counts,
                                    Label label, bool zeros) {
    const Memo::Labels& keys = memo_->of(key.name(), N, label);
    put_key(key);
    begin('{');
    for (std::size_t i = 0; i < N; ++i) {
      if (!(zeros || counts[i])) continue;
      next_line();
      out_.put_padded(keys[i].first.data(), keys[i].second);
      value(counts[i]);
    }
    end('}');
  }
  template <typename T, typename Table>
  [[gnu::always_inline]] void list(Key key, const std::vector<T>& items, Table table) {
    put_key(key);
    begin('[');
    for (const T& item : items) {
      next_line();
      write_object(item, table);
    }
    end(']');
  }
  [[gnu::always_inline]] bool diagnostic(Key key, DiagId id) {
    field(key, info(id).name);
    return true;
  }
  template <typename Table>
  [[gnu::always_inline]] void rule(Key key, const Suppression* rule, Table table,
                                   std::string_view /*id*/) {
    if (rule) object(key, *rule, table);
  }

 private:
  // The line of the next member or item of the object or array open.
  [[gnu::always_inline]] void next_line() {
    out_.line(first_, depth_);
    first_ = false;
  }
  [[gnu::always_inline]] void put_key(Key key) {
    if (key.plain()) {
      out_.line_key(first_, depth_, key);
      first_ = false;
    } else {
      put_key(key.name());
    }
  }
  [[gnu::noinline]] void put_key(std::string_view key) {
    next_line();
    text(key);
    out_.put(": ");
    out_.value_room();  // as line_key makes (member_value)
  }
  // A member's value after its key (put_key): a number or a flag in the room made for it.
  template <typename T>
  [[gnu::always_inline]] void member_value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      out_.flag_in_room(v);
    } else if constexpr (std::is_integral_v<T>) {
      out_.number_in_room(v);
    } else {
      value(v);
    }
  }
  [[gnu::always_inline]] void begin(char open) {
    out_.put(open);
    first_ = true;
    ++depth_;
  }
  [[gnu::always_inline]] void end(char close) {
    --depth_;
    if (!first_) out_.line(true, depth_);
    out_.put(close);
    first_ = false;  // the object or array is its parent's member
  }
  // Text written as it is between quotes: printable ASCII but '"' and '\\'. A byte under
  // 0x20, at or over 0x7f, '"' or '\\' is found sixteen octets at a time (SSE2; elsewhere
  // eight, a word's bytes at once: each such byte sets the top bit of its byte).
#if defined(__SSE2__)
  static bool plain(__m128i v) {
    const __m128i bad = _mm_or_si128(
        _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),  // (signed: 0x80 and over too)
                     _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    return _mm_movemask_epi8(bad) == 0;
  }
  static bool plain(std::uint64_t lo, std::uint64_t hi) {
    return plain(_mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo)));
  }
#else
  static bool plain(std::uint64_t lo, std::uint64_t hi) {
    constexpr std::uint64_t kOnes = 0x0101010101010101u;
    constexpr std::uint64_t kTops = kOnes * 0x80;
    const auto zero_byte = [](std::uint64_t w) { return (w - kOnes) & ~w & kTops; };
    const auto bad = [zero_byte](std::uint64_t w) {
      return ((w - kOnes * 0x20) & ~w & kTops) |       // under 0x20
             ((((w & ~kTops) + kOnes) | w) & kTops) |  // 0x7f and over
             zero_byte(w ^ (kOnes * '"')) | zero_byte(w ^ (kOnes * '\\'));
    };
    return (bad(lo) | bad(hi)) == 0;
  }
#endif
  // Sixteen octets at a time, the last sixteen overlapping those before; under sixteen, two
  // words that overlap (or byte by byte under four).
  static bool plain(std::string_view s) {
    const char* p = s.data();
    const std::size_t n = s.size();
    if (n >= 16) {
      bool ok = true;
      for (std::size_t i = 0; ok && i + 16 <= n; i += 16) ok = plain16(p + i);
      return ok && plain16(p + n - 16);
    }
    if (n >= 8) return plain(word<8>(p), word<8>(p + n - 8));
    if (n >= 4) {
      const std::uint64_t w = word<4>(p) | word<4>(p + n - 4) << 32;
      return plain(w, w);
    }
    bool bad = false;
    for (std::size_t i = 0; i < n; ++i) {
      const auto u = static_cast<unsigned char>(p[i]);
      bad |= u < 0x20 || u > 0x7e || u == '"' || u == '\\';
    }
    return !bad;
  }
  template <std::size_t N>
  static std::uint64_t word(const char* at) {
    std::conditional_t<N == 8, std::uint64_t, std::uint32_t> w;
    std::memcpy(&w, at, N);
    return w;
  }
  static bool plain16(const char* at) {
#if defined(__SSE2__)
    return plain(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
#else
    return plain(word<8>(at), word<8>(at + 8));
#endif
  }
  void text(std::string_view s) {
    if (plain(s)) [[likely]] {
      out_.quoted(s);
    } else {
      escaped(s);
    }
  }
  // (apart, so that text has no frame of its own to make)
  [[gnu::noinline]] void escaped(std::string_view s) {
    out_.put(nlohmann::ordered_json(std::string(s)).dump(-1, ' ', false, kInvalidUtf8));
  }
  // Values spelled by a table's Words: as Words::spell, by hand where that is cheaper.
  template <typename Words, typename T>
  void spell(Words, const T& v) {
    value(Words::spell(v));
  }
  void spell(EndpointWords, const Endpoint& e);
  void spell(MacWords, const std::optional<MacAddress>& mac);
  void spell(FindingTimeWords, const Finding& f);
  // An ordered_json written member by member (as dump(1) would); numbers that are not
  // integers are nlohmann's to write.
  void json_value(const nlohmann::ordered_json& j) {
    using Type = nlohmann::detail::value_t;
    switch (j.type()) {
      case Type::null:
        out_.put_literal("null");
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
          put_key(std::string_view(key));
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
  // A double as nlohmann writes it: a whole one under 10^15 (a percentage) as its digits and
  // ".0" (its to_chars: exponent at most 15, "-0.0" for minus zero), any other its way.
  void whole_or_json(double v) {
    // (the integer's conversion and back: trunc without a call to libm)
    if (v >= 0 && v < 1e15 && static_cast<double>(static_cast<std::uint64_t>(v)) == v &&
        !std::signbit(v)) {
      out_.number(static_cast<std::uint64_t>(v));
      out_.put_literal(".0");
    } else {
      json_value(nlohmann::ordered_json(v));
    }
  }
  template <typename T>
  [[gnu::always_inline]] void value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      out_.flag(v);
    } else if constexpr (std::is_integral_v<T>) {
      out_.number(v);
    } else if constexpr (std::is_same_v<T, double>) {
      whole_or_json(v);
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
  Memo* memo_;
  std::size_t depth_ = 0;
  bool first_ = true;
};

}  // namespace mpa::report::json_model
