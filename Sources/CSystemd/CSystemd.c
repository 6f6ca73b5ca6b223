// See include/CSystemd.h: the sd-login and sd-bus functions Keyhold uses, each looked up in
// libsystemd.so.0 on its first call.
#include <errno.h>
#include <stddef.h>
#include "CSystemd.h"
#include "LazyLibrary.h"

static struct keyhold_lazy_library systemd = KEYHOLD_LAZY_LIBRARY("libsystemd.so.0");

int keyhold_systemd_available(void) { return keyhold_lazy_open(&systemd); }

#define FORWARD(RET, NAME, PARAMS, ARGS, FAIL) KEYHOLD_FORWARD(systemd, RET, NAME, PARAMS, ARGS, FAIL)
// sd-login
FORWARD(int, sd_login_monitor_new, (const char *category, sd_login_monitor **ret), (category, ret), -ENOSYS)
FORWARD(sd_login_monitor *, sd_login_monitor_unref, (sd_login_monitor *m), (m), NULL)
FORWARD(int, sd_login_monitor_flush, (sd_login_monitor *m), (m), -ENOSYS)
FORWARD(int, sd_login_monitor_get_fd, (sd_login_monitor *m), (m), -ENOSYS)
FORWARD(int, sd_seat_get_active, (const char *seat, char **session, uid_t *uid), (seat, session, uid), -ENOSYS)
FORWARD(int, sd_session_get_type, (const char *session, char **type), (session, type), -ENOSYS)
FORWARD(int, sd_session_get_vt, (const char *session, unsigned *vtnr), (session, vtnr), -ENOSYS)
FORWARD(int, sd_session_get_uid, (const char *session, uid_t *uid), (session, uid), -ENOSYS)
FORWARD(int, sd_session_get_seat, (const char *session, char **seat), (session, seat), -ENOSYS)
FORWARD(int, sd_pid_get_session, (pid_t pid, char **session), (pid, session), -ENOSYS)
FORWARD(int, sd_uid_get_display, (uid_t uid, char **session), (uid, session), -ENOSYS)

// sd-bus
FORWARD(int, sd_bus_new, (sd_bus **ret), (ret), -ENOSYS)
FORWARD(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address), -ENOSYS)
FORWARD(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b), -ENOSYS)
FORWARD(int, sd_bus_start, (sd_bus *bus), (bus), -ENOSYS)
FORWARD(int, sd_bus_open_system_with_description, (sd_bus **ret, const char *description), (ret, description), -ENOSYS)
KEYHOLD_FORWARD_VOID(systemd, sd_bus_close, (sd_bus *bus), (bus))
FORWARD(sd_bus *, sd_bus_unref, (sd_bus *bus), (bus), NULL)
FORWARD(int, sd_bus_get_fd, (sd_bus *bus), (bus), -ENOSYS)
FORWARD(int, sd_bus_get_events, (sd_bus *bus), (bus), -ENOSYS)
FORWARD(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec), -ENOSYS)
FORWARD(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r), -ENOSYS)
FORWARD(int, sd_bus_add_match_async,
        (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback,
         sd_bus_message_handler_t install_callback, void *userdata),
        (bus, slot, match, callback, install_callback, userdata), -ENOSYS)
FORWARD(int, sd_bus_call_async,
        (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata,
         uint64_t usec),
        (bus, slot, m, callback, userdata, usec), -ENOSYS)
FORWARD(int, sd_bus_message_new_method_call,
        (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface,
         const char *member),
        (bus, m, destination, path, interface, member), -ENOSYS)
FORWARD(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p), -ENOSYS)
FORWARD(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p), -ENOSYS)
FORWARD(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m), NULL)
FORWARD(const sd_bus_error *, sd_bus_message_get_error, (sd_bus_message *m), (m), NULL)
FORWARD(int, sd_bus_message_is_method_error, (sd_bus_message *m, const char *name), (m, name), -ENOSYS)
