#include "fp_json.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <simdjson.h>
#include <string_view>
#include <vector>

using simdjson::dom::element;

static_assert(sizeof(element) <= sizeof(fp_json_value), "dom::element must fit in fp_json_value");

struct fp_json_parser {
    simdjson::dom::parser parser;
};

namespace {
struct Iter {
    uint8_t is_object;
    uint8_t pad[7];
    uint64_t words[3];
};
static_assert(sizeof(Iter) == sizeof(fp_json_iter), "Iter layout");
static_assert(sizeof(simdjson::dom::array::iterator) == 16, "array iterator is a tape_ref");
static_assert(sizeof(simdjson::dom::object::iterator) == 16, "object iterator is a tape_ref");

inline element unwrap(fp_json_value value) {
    element e;
    std::memcpy(static_cast<void *>(&e), &value, sizeof(element));
    return e;
}
inline fp_json_value wrap(element e) {
    fp_json_value value{};
    std::memcpy(&value, static_cast<const void *>(&e), sizeof(element));
    return value;
}
// A key's hash from its length and its first and last 8 bytes (two loads, not a loop over the
// bytes): equal keys hash alike, and unequal ones that collide (the same length, head and tail)
// are told apart by comparing their bytes after the sort.
inline uint64_t key_hash(std::string_view key) {
    uint64_t head = 0, tail = 0;
    size_t n = key.size();
    std::memcpy(&head, key.data(), n < 8 ? n : 8);
    if (n > 8) std::memcpy(&tail, key.data() + n - 8, 8);
    uint64_t hash = head * 0x9E3779B97F4A7C15ull ^ (tail + n) * 0xC2B2AE3D27D4EB4Full;
    return hash ^ (hash >> 29);
}

}  // namespace

extern "C" {

fp_json_parser *fp_json_parser_create(void) { return new (std::nothrow) fp_json_parser(); }

void fp_json_parser_destroy(fp_json_parser *parser) { delete parser; }

int fp_json_parse(fp_json_parser *parser, const char *bytes, size_t length, fp_json_value *root) {
    element e;
    auto error = parser->parser.parse(bytes, length, false).get(e);
    if (error) return static_cast<int>(error);
    *root = wrap(e);
    return 0;
}

const uint32_t *fp_json_structurals(fp_json_parser *parser, size_t *count) FP_JSON_NOEXCEPT {
    // Stage 1's output, which stage 2 read to build the document and leaves in place.
    auto &implementation = parser->parser.implementation;
    if (!implementation) {
        *count = 0;
        return nullptr;
    }
    *count = implementation->n_structural_indexes;
    return implementation->structural_indexes.get();
}

const char *fp_json_error_message(int code) {
    return simdjson::error_message(static_cast<simdjson::error_code>(code));
}

const char *fp_json_implementation(void) { return simdjson::get_active_implementation()->name().c_str(); }

#define FP_STRINGIFY2(x) #x
#define FP_STRINGIFY(x) FP_STRINGIFY2(x)
const char *fp_json_version(void) { return FP_STRINGIFY(SIMDJSON_VERSION); }

fp_json_type fp_json_type_of(fp_json_value value) {
    switch (unwrap(value).type()) {
    case simdjson::dom::element_type::ARRAY: return FP_JSON_ARRAY;
    case simdjson::dom::element_type::OBJECT: return FP_JSON_OBJECT;
    case simdjson::dom::element_type::INT64: return FP_JSON_INT;
    case simdjson::dom::element_type::UINT64: return FP_JSON_UINT;
    case simdjson::dom::element_type::DOUBLE: return FP_JSON_DOUBLE;
    case simdjson::dom::element_type::STRING: return FP_JSON_STRING;
    case simdjson::dom::element_type::BOOL: return FP_JSON_BOOL;
    case simdjson::dom::element_type::NULL_VALUE: return FP_JSON_NULL;
    }
    return FP_JSON_NULL;
}

bool fp_json_find(fp_json_value object, const char *key, size_t key_length, fp_json_value *out) {
    simdjson::dom::object o;
    if (unwrap(object).get_object().get(o)) return false;
    element e;
    if (o.at_key(std::string_view(key, key_length)).get(e)) return false;
    *out = wrap(e);
    return true;
}

bool fp_json_get_int64(fp_json_value value, int64_t *out) {
    element e = unwrap(value);
    if (!e.is_int64() && !e.is_uint64()) return false;
    return !e.get_int64().get(*out);
}

bool fp_json_get_double(fp_json_value value, double *out) { return !unwrap(value).get_double().get(*out); }

bool fp_json_get_bool(fp_json_value value, bool *out) { return !unwrap(value).get_bool().get(*out); }

bool fp_json_get_string(fp_json_value value, const char **bytes, size_t *length) {
    std::string_view s;
    if (unwrap(value).get_string().get(s)) return false;
    *bytes = s.data();
    *length = s.size();
    return true;
}

// Whether two members of `object` have the same key: its keys sorted, neighbours compared
// (O(k log k), whatever the keys; only for an object whose key hashes collide, which a duplicate
// always makes them do, and which keys alike but in the middle also do).
static bool has_equal_keys(simdjson::dom::object object) {
    thread_local std::vector<std::string_view> names;
    names.clear();
    for (auto field : object) names.push_back(field.key);
    std::sort(names.begin(), names.end());
    return std::adjacent_find(names.begin(), names.end()) != names.end();
}

namespace {
// A sequence of key hashes, in the object's order, whose hashes are all different: an object
// with the very same sequence has no key twice (equal keys hash alike). A record's objects repeat
// a few such sequences (an observation's, its photos', its taxon's), so most objects are told
// free of duplicates by one comparison instead of a sort (the sort was half of this walk).
struct KeyShape {
    uint64_t fingerprint = 0;
    std::vector<uint64_t> hashes;
};
constexpr size_t key_shape_slots = 64;
// Objects of more keys than this are sorted in place and never remembered: a slot holds at most
// this many hashes, whatever the input.
constexpr size_t key_shape_max_keys = 64;
}  // namespace

bool fp_json_has_duplicate_keys(fp_json_value value) FP_JSON_NOEXCEPT {
    // Per thread, kept from call to call: a record's walk allocates nothing once they have grown.
    // noexcept: an allocation that fails ends the process rather than unwinding into Swift.
    thread_local std::vector<element> pending;
    thread_local std::vector<uint64_t> hashes;
    thread_local std::vector<uint64_t> sorted;
    thread_local KeyShape shapes[key_shape_slots];
    pending.clear();
    pending.push_back(unwrap(value));
    while (!pending.empty()) {
        element e = pending.back();
        pending.pop_back();
        if (e.is_array()) {
            for (element child : e.get_array().value_unsafe()) {
                if (child.is_array() || child.is_object()) pending.push_back(child);
            }
            continue;
        }
        if (!e.is_object()) continue;
        simdjson::dom::object object = e.get_object().value_unsafe();
        hashes.clear();
        uint64_t fingerprint = 0;
        for (auto field : object) {
            uint64_t hash = key_hash(field.key);
            hashes.push_back(hash);
            fingerprint = (fingerprint ^ hash) * 0x100000001B3ull;
            if (field.value.is_array() || field.value.is_object()) pending.push_back(field.value);
        }
        if (hashes.size() < 2) continue;
        // A small object's sequence may be remembered: it is sorted in a copy. A larger one is
        // sorted in place and never remembered.
        KeyShape *shape =
            hashes.size() <= key_shape_max_keys ? &shapes[(fingerprint ^ (fingerprint >> 32)) % key_shape_slots] : nullptr;
        // The whole sequence is compared, so a fingerprint that collides only costs the sort.
        if (shape && shape->fingerprint == fingerprint && shape->hashes == hashes) continue;
        if (shape) sorted.assign(hashes.begin(), hashes.end());
        std::vector<uint64_t> &order = shape ? sorted : hashes;
        std::sort(order.begin(), order.end());
        if (std::adjacent_find(order.begin(), order.end()) == order.end()) {
            if (shape) {
                shape->fingerprint = fingerprint;
                shape->hashes.assign(hashes.begin(), hashes.end());
            }
            continue;
        }
        // Two keys hash alike: equal keys, or unequal ones alike at both ends.
        if (has_equal_keys(object)) return true;
    }
    return false;
}

size_t fp_json_array_elements(fp_json_value array, fp_json_value *out, size_t capacity) FP_JSON_NOEXCEPT {
    simdjson::dom::array a;
    if (unwrap(array).get_array().get(a)) return 0;
    size_t count = 0;
    for (element e : a) {
        if (count < capacity) out[count] = wrap(e);
        count++;
    }
    return count;
}

bool fp_json_iter_begin(fp_json_value container, fp_json_iter *iter) {
    element e = unwrap(container);
    Iter it{};
    if (e.is_array()) {
        simdjson::dom::array a = e.get_array().value_unsafe();
        auto begin = a.begin(), end = a.end();
        it.is_object = 0;
        std::memcpy(&it.words[0], static_cast<const void *>(&begin), 16);
        std::memcpy(&it.words[2], reinterpret_cast<const char *>(&end) + 8, 8);
    } else if (e.is_object()) {
        simdjson::dom::object o = e.get_object().value_unsafe();
        auto begin = o.begin(), end = o.end();
        it.is_object = 1;
        std::memcpy(&it.words[0], static_cast<const void *>(&begin), 16);
        std::memcpy(&it.words[2], reinterpret_cast<const char *>(&end) + 8, 8);
    } else {
        return false;
    }
    std::memcpy(iter, &it, sizeof(Iter));
    return true;
}

bool fp_json_iter_next(fp_json_iter *iter, fp_json_value *out, const char **key, size_t *key_length) {
    Iter it;
    std::memcpy(&it, iter, sizeof(Iter));
    // Both iterators are a tape_ref {document pointer, tape index}; `end` shares the document,
    // so words hold {document, current index, end index}.
    uint64_t current[2] = {it.words[0], it.words[1]};
    uint64_t end[2] = {it.words[0], it.words[2]};
    if (it.is_object) {
        simdjson::dom::object::iterator cur, stop;
        std::memcpy(static_cast<void *>(&cur), current, 16);
        std::memcpy(static_cast<void *>(&stop), end, 16);
        if (!(cur != stop)) return false;
        std::string_view k = cur.key();
        *key = k.data();
        *key_length = k.size();
        *out = wrap(cur.value());
        ++cur;
        std::memcpy(current, static_cast<const void *>(&cur), 16);
    } else {
        simdjson::dom::array::iterator cur, stop;
        std::memcpy(static_cast<void *>(&cur), current, 16);
        std::memcpy(static_cast<void *>(&stop), end, 16);
        if (!(cur != stop)) return false;
        if (key) { *key = nullptr; *key_length = 0; }
        *out = wrap(*cur);
        ++cur;
        std::memcpy(current, static_cast<const void *>(&cur), 16);
    }
    it.words[0] = current[0];
    it.words[1] = current[1];
    std::memcpy(iter, &it, sizeof(Iter));
    return true;
}

}  // extern "C"
