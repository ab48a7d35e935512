#ifndef FIELDPACK_CSQLITE3_SHIM_H
#define FIELDPACK_CSQLITE3_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes.
static inline int fp_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}
#endif
