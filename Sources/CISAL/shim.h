#ifndef FIELDPACK_CISAL_SHIM_H
#define FIELDPACK_CISAL_SHIM_H
// ISA-L's igzip: streaming inflate of gzip members.
#include <stddef.h>
#include <stdint.h>
#include <isa-l/igzip_lib.h>
#include <isa-l.h>

/// The bytes igzip has inflated into its own buffer but not yet copied out (it inflates ahead
/// of a small output buffer, and an error drops them unless they are taken here).
static inline size_t fp_isal_pending_output(const struct inflate_state *state, const uint8_t **bytes) {
    int32_t count = state->tmp_out_valid - state->tmp_out_processed;
    if (count <= 0) {
        *bytes = 0;
        return 0;
    }
    *bytes = state->tmp_out_buffer + state->tmp_out_processed;
    return (size_t)count;
}
#endif
