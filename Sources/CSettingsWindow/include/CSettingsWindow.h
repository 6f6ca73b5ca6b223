#ifndef KEYHOLD_CSETTINGSWINDOW_H
#define KEYHOLD_CSETTINGSWINDOW_H

// keyhold-settings' widgets: GTK 4 and libadwaita rows in one preferences window. The window's
// logic lives in Swift (Sources/keyhold-settings); these calls only make widgets and report what
// the user did through `khw_changed` with the caller's context. No state of its own: a row's
// control hangs off the row ("control" object data). Each control carries its row's title as
// its accessible name, so AT-SPI (a screen reader, the tests) finds it by what it says.
//
// Pointers are GtkWidget * (or AdwApplication *), opaque to Swift.

// The user changed a control: its text (an entry's, a spin button's), or its state (1/0 for a
// switch, 1 for a button).
typedef void (*khw_changed)(void *context, const char *text, int state);

// Runs an application with `app_id`; `activate` once it is ready for a window. Returns its
// exit status.
int khw_run(const char *app_id, void (*activate)(void *context, void *app), void *context);

void *khw_window(void *app, const char *title);
void khw_present(void *window);
void khw_toast(void *window, const char *text);

void *khw_group(void *window, const char *title, const char *description);

// Rows of a group; each returns the row.
void *khw_label(void *group, const char *title, const char *subtitle);
void *khw_switch(void *group, const char *title, const char *subtitle, int active, khw_changed changed, void *context);
void *khw_spin(void *group, const char *title, const char *subtitle, double min, double max, double step,
               double value, khw_changed changed, void *context);
void *khw_entry(void *group, const char *title, const char *text, khw_changed changed, void *context);
void *khw_button(void *group, const char *title, const char *subtitle, const char *label, khw_changed changed,
                 void *context);

void khw_set_subtitle(void *row, const char *subtitle);
void khw_set_description(void *group, const char *description);
void khw_set_sensitive(void *row, int sensitive);
// A switch's state, without reporting it as the user's change.
void khw_set_active(void *row, int active);

// Calls `fire` once after `ms` (again while it returns 1); returns the source id.
unsigned khw_timeout(unsigned ms, int (*fire)(void *context), void *context);
void khw_cancel(unsigned source);

#endif
