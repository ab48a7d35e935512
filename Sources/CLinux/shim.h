#ifndef FIELDPACK_CLINUX_SHIM_H
#define FIELDPACK_CLINUX_SHIM_H
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

/// Linux's renameat2(2) (glibc 2.28+), which Swift's Glibc module does not declare: it needs
/// _GNU_SOURCE, and the module is built without it. The flags are the kernel's ABI values.
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// Swaps two existing paths in one step: neither is ever absent.
static inline int fp_rename_exchange(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, 2 /* RENAME_EXCHANGE */);
}

/// Renames only if `to` does not exist (EEXIST otherwise), in one step.
static inline int fp_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
}

/// Fixes glibc's threshold for serving an allocation by its own mmap at `bytes`, unless the
/// user set MALLOC_MMAP_THRESHOLD_ (glibc's own tunable, which then wins). Setting it turns off
/// glibc's dynamic threshold, which rises to the largest block freed (up to 32 MiB): past that,
/// buffers a stage makes and frees per file come from the heap, the small allocations that live
/// on land in their holes, and the heap grows with the number of files (fieldpack-inat on 15,150
/// pages, when it allocated a 1 MiB read buffer per file: 362 MB peak RSS with the dynamic
/// threshold, 75 MB fixed). Ingest now reuses one read buffer per worker (76 MB fixed, 81-87 MB
/// dynamic; on 50,500 pages 124 MB and 132 MB); the threshold stays fixed so no other per-file
/// buffer can bring the growth back. Returns mallopt's result (1 on success), or 1 when the
/// environment decides.
static inline int fp_fix_mmap_threshold(int bytes) {
    if (getenv("MALLOC_MMAP_THRESHOLD_") != NULL) return 1;
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
/// Flushes standard output: 0 once everything printed was written, -1 when a write failed (a
/// full disk, a closed descriptor; errno says why). Swift 6 cannot name C's `stdout` (a global
/// it takes for shared mutable state).
static inline int fp_flush_standard_output(void) {
    return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
}

#endif
