#ifndef FIELDPACK_CLINUX_SHIM_H
#define FIELDPACK_CLINUX_SHIM_H
#include <fcntl.h>

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
#endif
