// libxlsxwriter (Debian's libxlsxwriter-dev 1.1.4) as a Swift module, imported only by
// Sources/ReportRenderers/Renderers/XLSX/.
//
// Swift can call everything the renderer uses directly (no variadic functions or macros are
// needed), so there is nothing to wrap: add `static inline` helpers here only for what Swift
// cannot call.
#include <xlsxwriter.h>
