#ifndef FIELDPACK_WIKI_ALLOCATOR_H
#define FIELDPACK_WIKI_ALLOCATOR_H
// Nothing to call: linking this target sets jemalloc's options for fieldpack-wiki (allocator.c).
#endif
