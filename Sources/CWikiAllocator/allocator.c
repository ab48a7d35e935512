#include "wiki_allocator.h"

#include <jemalloc/jemalloc.h>

// jemalloc's options for fieldpack-wiki, read by jemalloc when it starts (its `malloc_conf`
// symbol; MALLOC_CONF in the environment still overrides them).
//
// Each worker thread gets its own jemalloc arena, and an arena keeps the pages a freed libxml2
// tree used for `dirty_decay_ms` before it returns them to the system (10 s by default). With
// multi-megabyte articles parsed on two threads, each arena kept about one large tree's pages
// besides the tree the other thread was building: 40-60 MB of the stage's peak on the benchmark's
// 20,000 articles. One second keeps the reuse between consecutive articles and returns the rest.
// Pages jemalloc has advised the kernel it may take (MADV_FREE, "muzzy") still count in the
// process's resident memory until the kernel does: they are returned at once.
const char *malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0";

#define FP_STRINGIFY_(x) #x
#define FP_STRINGIFY(x) FP_STRINGIFY_(x)

void fp_wiki_release_freed_memory(void) {
    // Every arena: the reader's holds the job's copy of the HTML, a worker's the tree.
    (void)mallctl("arena." FP_STRINGIFY(MALLCTL_ARENAS_ALL) ".purge", NULL, NULL, NULL, 0);
}
