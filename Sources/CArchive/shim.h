#ifndef FIELDPACK_CARCHIVE_SHIM_H
#define FIELDPACK_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
