#ifndef FIELDPACK_CZLIB_SHIM_H
#define FIELDPACK_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro Swift cannot import.
static inline int fp_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
