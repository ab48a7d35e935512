#include "wiki_allocator.h"

// jemalloc's options for fieldpack-wiki, read by jemalloc when it starts (its `malloc_conf`
// symbol; MALLOC_CONF in the environment still overrides them).
//
// Each worker thread gets its own jemalloc arena, and an arena keeps the pages a freed libxml2
// tree used for `dirty_decay_ms` before it returns them to the system (10 s by default). With
// multi-megabyte articles parsed on two threads, each arena kept about one large tree's pages
// besides the tree the other thread was building: 40-60 MB of the stage's peak on the benchmark's
// 20,000 articles. One second keeps the reuse between consecutive articles and returns the rest.
const char *malloc_conf = "dirty_decay_ms:1000";
