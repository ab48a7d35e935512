#ifndef FIELDPACK_CSQLITE3_SHIM_H
#define FIELDPACK_CSQLITE3_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes.
static inline int fp_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}
/// SQLITE_STATIC, the same: SQLite reads the bound bytes where they are, so they must stay valid
/// and unchanged until the parameter is bound again, the bindings are cleared
/// (sqlite3_clear_bindings; sqlite3_reset alone keeps them) or the statement is finalized.
static inline int fp_sqlite3_bind_text_static(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_STATIC);
}
/// SQLITE_CONFIG_MEMSTATUS through sqlite3_config, a variadic function Swift cannot call: off,
/// SQLite takes no global mutex around each of its allocations to count them (fieldpack reads no
/// memory statistic of SQLite's). Only before the library is initialized (before the first
/// connection opens); SQLITE_MISUSE after.
static inline int fp_sqlite3_config_memstatus_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
