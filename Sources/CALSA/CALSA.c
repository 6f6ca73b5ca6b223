// See include/CALSA.h: the alsa-lib functions Keyhold uses, each looked up in libasound.so.2 on
// its first call.
#include <errno.h>
#include <stddef.h>
#include "CALSA.h"
#include "LazyLibrary.h"

static struct keyhold_lazy_library asound = KEYHOLD_LAZY_LIBRARY("libasound.so.2");

#define FORWARD(RET, NAME, PARAMS, ARGS, FAIL) KEYHOLD_FORWARD(asound, RET, NAME, PARAMS, ARGS, FAIL)
#define FORWARD_VOID(NAME, PARAMS, ARGS) KEYHOLD_FORWARD_VOID(asound, NAME, PARAMS, ARGS)

const char *snd_strerror(int errnum) {
    const char *(*f)(int) = (const char *(*)(int))keyhold_lazy_symbol(&asound, "snd_strerror");
    return f ? f(errnum) : "libasound.so.2 cannot be opened";
}

FORWARD(snd_local_error_handler_t, snd_lib_error_set_local, (snd_local_error_handler_t func), (func), NULL)

FORWARD(int, snd_pcm_open, (snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode),
        (pcm, name, stream, mode), -ENOSYS)
FORWARD(int, snd_pcm_close, (snd_pcm_t *pcm), (pcm), -ENOSYS)
FORWARD(int, snd_pcm_prepare, (snd_pcm_t *pcm), (pcm), -ENOSYS)
FORWARD(int, snd_pcm_drain, (snd_pcm_t *pcm), (pcm), -ENOSYS)
FORWARD(int, snd_pcm_drop, (snd_pcm_t *pcm), (pcm), -ENOSYS)
FORWARD(int, snd_pcm_recover, (snd_pcm_t *pcm, int err, int silent), (pcm, err, silent), -ENOSYS)
FORWARD(int, snd_pcm_wait, (snd_pcm_t *pcm, int timeout), (pcm, timeout), -ENOSYS)
FORWARD(snd_pcm_state_t, snd_pcm_state, (snd_pcm_t *pcm), (pcm), SND_PCM_STATE_DISCONNECTED)
FORWARD(snd_pcm_sframes_t, snd_pcm_avail, (snd_pcm_t *pcm), (pcm), -ENOSYS)
FORWARD(snd_pcm_sframes_t, snd_pcm_writei, (snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size),
        (pcm, buffer, size), -ENOSYS)
FORWARD(int, snd_pcm_get_params, (snd_pcm_t *pcm, snd_pcm_uframes_t *buffer_size, snd_pcm_uframes_t *period_size),
        (pcm, buffer_size, period_size), -ENOSYS)

FORWARD(int, snd_pcm_hw_params_malloc, (snd_pcm_hw_params_t **ptr), (ptr), -ENOSYS)
FORWARD_VOID(snd_pcm_hw_params_free, (snd_pcm_hw_params_t *obj), (obj))
FORWARD(int, snd_pcm_hw_params_any, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params), (pcm, params), -ENOSYS)
FORWARD(int, snd_pcm_hw_params, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params), (pcm, params), -ENOSYS)
FORWARD(int, snd_pcm_hw_params_set_access, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_access_t access),
        (pcm, params, access), -ENOSYS)
FORWARD(int, snd_pcm_hw_params_set_format, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_format_t val),
        (pcm, params, val), -ENOSYS)
FORWARD(int, snd_pcm_hw_params_set_channels_near, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *val),
        (pcm, params, val), -ENOSYS)
FORWARD(int, snd_pcm_hw_params_set_rate_near,
        (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *val, int *dir), (pcm, params, val, dir), -ENOSYS)
FORWARD(int, snd_pcm_hw_params_set_buffer_size_near,
        (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_uframes_t *val), (pcm, params, val), -ENOSYS)
FORWARD(int, snd_pcm_hw_params_set_period_size_near,
        (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_uframes_t *val, int *dir), (pcm, params, val, dir), -ENOSYS)

FORWARD(int, snd_pcm_sw_params_malloc, (snd_pcm_sw_params_t **ptr), (ptr), -ENOSYS)
FORWARD_VOID(snd_pcm_sw_params_free, (snd_pcm_sw_params_t *obj), (obj))
FORWARD(int, snd_pcm_sw_params_current, (snd_pcm_t *pcm, snd_pcm_sw_params_t *params), (pcm, params), -ENOSYS)
FORWARD(int, snd_pcm_sw_params, (snd_pcm_t *pcm, snd_pcm_sw_params_t *params), (pcm, params), -ENOSYS)
FORWARD(int, snd_pcm_sw_params_get_boundary, (const snd_pcm_sw_params_t *params, snd_pcm_uframes_t *val),
        (params, val), -ENOSYS)
FORWARD(int, snd_pcm_sw_params_set_avail_min, (snd_pcm_t *pcm, snd_pcm_sw_params_t *params, snd_pcm_uframes_t val),
        (pcm, params, val), -ENOSYS)
FORWARD(int, snd_pcm_sw_params_set_start_threshold,
        (snd_pcm_t *pcm, snd_pcm_sw_params_t *params, snd_pcm_uframes_t val), (pcm, params, val), -ENOSYS)
FORWARD(int, snd_pcm_sw_params_set_silence_threshold,
        (snd_pcm_t *pcm, snd_pcm_sw_params_t *params, snd_pcm_uframes_t val), (pcm, params, val), -ENOSYS)
FORWARD(int, snd_pcm_sw_params_set_silence_size,
        (snd_pcm_t *pcm, snd_pcm_sw_params_t *params, snd_pcm_uframes_t val), (pcm, params, val), -ENOSYS)
