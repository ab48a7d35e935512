#ifndef FIELDPACK_CISAL_SHIM_H
#define FIELDPACK_CISAL_SHIM_H
// ISA-L's igzip: streaming inflate of gzip members, in about 40% of the CPU time zlib took.
#include <isa-l/igzip_lib.h>
#endif
