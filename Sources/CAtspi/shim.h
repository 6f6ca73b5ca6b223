// AT-SPI 2 (the desktop's accessibility bus), for CSessionOverlay: where the text caret is.
#include <atspi/atspi.h>
