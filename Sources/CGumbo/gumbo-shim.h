// Debian's Gumbo 0.10.1 (libgumbo-dev), an HTML5 tree builder, found through
// pkg-config `gumbo`. Only NavWatchHTML imports it: it parses the documents
// the crawl checks without rendering.
#include <gumbo.h>
