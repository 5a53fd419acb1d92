// The system WebKitGTK 4.1 (GTK 3) API, found through pkg-config `webkit2gtk-4.1`.
// Only the shim includes it; Swift code reaches WebKit through CNavShim.
#include <webkit2/webkit2.h>
