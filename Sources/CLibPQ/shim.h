// libpq (Debian's libpq-dev: the header in /usr/include/postgresql, found through pkg-config's libpq) as a Swift
// module, imported only by Sources/ObjectStore/SQL/PostgreSQL/ (SQLBoundaryTests holds that line).
//
// Swift calls what the connection uses directly; add `static inline` helpers here only for what Swift cannot call.
#include <libpq-fe.h>
