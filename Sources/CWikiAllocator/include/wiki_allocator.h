#ifndef FIELDPACK_WIKI_ALLOCATOR_H
#define FIELDPACK_WIKI_ALLOCATOR_H
// Linking this target sets jemalloc's options for fieldpack-wiki (allocator.c).

/// Returns the pages of every jemalloc arena's freed memory to the system at once (after a large
/// article's tree is freed), instead of after the decay time.
void fp_wiki_release_freed_memory(void);
#endif
