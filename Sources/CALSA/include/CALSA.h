// alsa-lib's PCM functions, loaded when first used rather than when the program starts.
//
// The declarations are alsa-lib's own header; CALSA.c defines the functions Keyhold calls, each
// forwarding to libasound.so.2, which it opens (dlopen, RTLD_LOCAL) on the first call: the first
// sound, on the audio thread. Loading libasound at exec was 750,000 instructions of the dynamic
// loader's work before the daemon's first key. Without libasound the functions fail with
// -ENOSYS, as a missing sound card does. A function not listed in CALSA.c does not link: add it
// there (the program is not linked with -lasound).
#ifndef KEYHOLD_CALSA_H
#define KEYHOLD_CALSA_H

#include <alsa/asoundlib.h>

#endif
