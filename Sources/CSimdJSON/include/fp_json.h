#ifndef FIELDPACK_FP_JSON_H
#define FIELDPACK_FP_JSON_H
// A small C interface over simdjson's DOM parser, so Swift can walk parsed documents without
// copying: strings are returned as pointers into the parser's buffer, valid until the next parse.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
/// Said of a function whose C++ body may allocate: a failure ends the process instead of
/// unwinding into its C or Swift caller.
#define FP_JSON_NOEXCEPT noexcept
extern "C" {
#else
#define FP_JSON_NOEXCEPT
#endif

/// Bytes that must be readable after every buffer handed to `fp_json_parse`.
#define FP_JSON_PADDING 64

typedef struct fp_json_parser fp_json_parser;

/// A parsed JSON value (a simdjson `dom::element`), valid until its parser parses again.
typedef struct { uint64_t opaque[2]; } fp_json_value;

/// A position in an array or object, from `fp_json_iter_begin`.
typedef struct { uint64_t opaque[4]; } fp_json_iter;

typedef enum {
    FP_JSON_NULL = 0,
    FP_JSON_BOOL,
    FP_JSON_INT,
    FP_JSON_UINT,
    FP_JSON_DOUBLE,
    FP_JSON_STRING,
    FP_JSON_ARRAY,
    FP_JSON_OBJECT,
} fp_json_type;

fp_json_parser *fp_json_parser_create(void);
void fp_json_parser_destroy(fp_json_parser *parser);

/// Parses `length` bytes at `bytes`, which must be followed by FP_JSON_PADDING readable bytes.
/// Returns 0 and sets `root`, or returns a nonzero error code for `fp_json_error_message`.
int fp_json_parse(fp_json_parser *parser, const char *bytes, size_t length, fp_json_value *root);
const char *fp_json_error_message(int code);
/// The positions of the structural characters (`{}[]:,` and the first byte of every scalar)
/// that simdjson's first stage found in the document `parser` last parsed, in order; `count`
/// is set to their number. Valid until the parser parses again.
const uint32_t *fp_json_structurals(fp_json_parser *parser, size_t *count) FP_JSON_NOEXCEPT;
const char *fp_json_implementation(void);
const char *fp_json_version(void);

fp_json_type fp_json_type_of(fp_json_value value);
/// Looks a key up in an object; false if `object` is not an object or has no such key.
bool fp_json_find(fp_json_value object, const char *key, size_t key_length, fp_json_value *out);
/// An integer that fits in int64 (not a double, even an integral one).
bool fp_json_get_int64(fp_json_value value, int64_t *out);
/// Any number.
bool fp_json_get_double(fp_json_value value, double *out);
bool fp_json_get_bool(fp_json_value value, bool *out);
bool fp_json_get_string(fp_json_value value, const char **bytes, size_t *length);

/// Whether an object anywhere in `value` (itself included) has two members with the same key.
/// An explicit stack, not recursion, so a deeply nested value cannot overflow a thread's stack.
bool fp_json_has_duplicate_keys(fp_json_value value) FP_JSON_NOEXCEPT;

/// Copies up to `capacity` of an array's elements into `out`, in order, in one pass over the
/// document; returns how many it has (more than `capacity` when `out` was too small), 0 if
/// `array` is not an array.
size_t fp_json_array_elements(fp_json_value array, fp_json_value *out, size_t capacity) FP_JSON_NOEXCEPT;

/// Starts iterating an array's elements or an object's values; false if `container` is neither.
bool fp_json_iter_begin(fp_json_value container, fp_json_iter *iter);
/// Yields the next element (and, for objects, its key); false at the end.
bool fp_json_iter_next(fp_json_iter *iter, fp_json_value *out, const char **key, size_t *key_length);

#ifdef __cplusplus
}
#endif
#endif
