// The target's functions are inline in include/CLinuxShim.h; SwiftPM needs one source file.
#include "CLinuxShim.h"
