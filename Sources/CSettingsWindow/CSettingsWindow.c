#include "CSettingsWindow.h"

#include <adwaita.h>

// What a control reports to, freed with its signal connection.
struct khw_target {
    khw_changed changed;
    void *context;
};

static struct khw_target *target(khw_changed changed, void *context) {
    struct khw_target *t = g_new(struct khw_target, 1);
    t->changed = changed;
    t->context = context;
    return t;
}

static void free_target(gpointer data, GClosure *closure) { (void)closure; g_free(data); }

static void connect(GtkWidget *control, const char *signal, GCallback callback, khw_changed changed, void *context) {
    gulong id = g_signal_connect_data(control, signal, callback, target(changed, context), free_target, 0);
    g_object_set_data(G_OBJECT(control), "khw-handler", GUINT_TO_POINTER(id));
}

static void name(GtkWidget *control, const char *title) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(control), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
}

static GtkWidget *control_of(void *row) { return g_object_get_data(G_OBJECT(row), "khw-control"); }

struct khw_activation {
    void (*activate)(void *context, void *app);
    void *context;
};

static void activated(GApplication *app, gpointer data) {
    struct khw_activation *a = data;
    a->activate(a->context, app);
}

int khw_run(const char *app_id, void (*activate)(void *context, void *app), void *context) {
    struct khw_activation a = { activate, context };
    AdwApplication *app = adw_application_new(app_id, G_APPLICATION_DEFAULT_FLAGS);
    g_signal_connect(app, "activate", G_CALLBACK(activated), &a);
    int status = g_application_run(G_APPLICATION(app), 0, NULL);
    g_object_unref(app);
    return status;
}

void *khw_window(void *app, const char *title) {
    GtkWidget *window = adw_preferences_window_new();
    gtk_window_set_application(GTK_WINDOW(window), GTK_APPLICATION(app));
    gtk_window_set_title(GTK_WINDOW(window), title);
    gtk_window_set_default_size(GTK_WINDOW(window), 640, 760);
    adw_preferences_window_set_search_enabled(ADW_PREFERENCES_WINDOW(window), FALSE);
    GtkWidget *page = adw_preferences_page_new();
    adw_preferences_window_add(ADW_PREFERENCES_WINDOW(window), ADW_PREFERENCES_PAGE(page));
    g_object_set_data(G_OBJECT(window), "khw-page", page);
    return window;
}

void khw_present(void *window) { gtk_window_present(GTK_WINDOW(window)); }

void khw_toast(void *window, const char *text) {
    adw_preferences_window_add_toast(ADW_PREFERENCES_WINDOW(window), adw_toast_new(text));
}

void *khw_group(void *window, const char *title, const char *description) {
    GtkWidget *group = adw_preferences_group_new();
    adw_preferences_group_set_title(ADW_PREFERENCES_GROUP(group), title);
    if (description) adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(group), description);
    adw_preferences_page_add(ADW_PREFERENCES_PAGE(g_object_get_data(G_OBJECT(window), "khw-page")),
                             ADW_PREFERENCES_GROUP(group));
    return group;
}

static GtkWidget *row(void *group, const char *title, const char *subtitle) {
    GtkWidget *r = adw_action_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), title);
    if (subtitle) adw_action_row_set_subtitle(ADW_ACTION_ROW(r), subtitle);
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), r);
    return r;
}

static void add_control(GtkWidget *r, GtkWidget *control, const char *title, gboolean activatable) {
    gtk_widget_set_valign(control, GTK_ALIGN_CENTER);
    adw_action_row_add_suffix(ADW_ACTION_ROW(r), control);
    g_object_set_data(G_OBJECT(r), "khw-control", control);
    // An activatable row's widget is labelled by the row's title already (libadwaita)
    if (activatable) adw_action_row_set_activatable_widget(ADW_ACTION_ROW(r), control);
    else name(control, title);
}

void *khw_label(void *group, const char *title, const char *subtitle) { return row(group, title, subtitle); }

static void switched(GObject *control, GParamSpec *spec, gpointer data) {
    (void)spec;
    struct khw_target *t = data;
    t->changed(t->context, "", gtk_switch_get_active(GTK_SWITCH(control)));
}

void *khw_switch(void *group, const char *title, const char *subtitle, int active, khw_changed changed, void *context) {
    GtkWidget *r = row(group, title, subtitle), *control = gtk_switch_new();
    gtk_switch_set_active(GTK_SWITCH(control), active);
    add_control(r, control, title, TRUE);
    connect(control, "notify::active", G_CALLBACK(switched), changed, context);
    return r;
}

static void edited(GtkEditable *control, gpointer data) {
    struct khw_target *t = data;
    t->changed(t->context, gtk_editable_get_text(control), 0);
}

void *khw_spin(void *group, const char *title, const char *subtitle, double min, double max, double step,
               double value, khw_changed changed, void *context) {
    GtkWidget *r = row(group, title, subtitle), *control = gtk_spin_button_new_with_range(min, max, step);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(control), value);
    gtk_spin_button_set_numeric(GTK_SPIN_BUTTON(control), TRUE);
    add_control(r, control, title, FALSE);
    // The text as it is edited (also through AT-SPI's EditableText), not only once it is
    // committed: the caller waits for the edits to settle.
    connect(control, "changed", G_CALLBACK(edited), changed, context);
    return r;
}

void *khw_entry(void *group, const char *title, const char *text, khw_changed changed, void *context) {
    GtkWidget *r = adw_entry_row_new();
    adw_preferences_row_set_title(ADW_PREFERENCES_ROW(r), title);
    gtk_editable_set_text(GTK_EDITABLE(r), text ? text : "");
    adw_preferences_group_add(ADW_PREFERENCES_GROUP(group), r);
    g_object_set_data(G_OBJECT(r), "khw-control", r);
    name(r, title);
    if (changed) connect(r, "changed", G_CALLBACK(edited), changed, context);
    return r;
}

static void clicked(GtkButton *control, gpointer data) {
    (void)control;
    struct khw_target *t = data;
    t->changed(t->context, "", 1);
}

void *khw_button(void *group, const char *title, const char *subtitle, const char *label, khw_changed changed,
                 void *context) {
    GtkWidget *r = row(group, title, subtitle), *control = gtk_button_new_with_label(label);
    add_control(r, control, title, FALSE);
    connect(control, "clicked", G_CALLBACK(clicked), changed, context);
    return r;
}

void khw_set_subtitle(void *row, const char *subtitle) { adw_action_row_set_subtitle(ADW_ACTION_ROW(row), subtitle); }

void khw_set_description(void *group, const char *description) {
    adw_preferences_group_set_description(ADW_PREFERENCES_GROUP(group), description);
}

void khw_set_sensitive(void *row, int sensitive) { gtk_widget_set_sensitive(GTK_WIDGET(row), sensitive); }

void khw_set_active(void *row, int active) {
    GtkWidget *control = control_of(row);
    if (!control) return;
    gulong id = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(control), "khw-handler"));
    if (id) g_signal_handler_block(control, id);
    if (GTK_IS_SWITCH(control)) gtk_switch_set_active(GTK_SWITCH(control), active);
    if (id) g_signal_handler_unblock(control, id);
}

struct khw_timer {
    int (*fire)(void *context);
    void *context;
};

static gboolean timer_fired(gpointer data) {
    struct khw_timer *t = data;
    return t->fire(t->context) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

unsigned khw_timeout(unsigned ms, int (*fire)(void *context), void *context) {
    struct khw_timer *t = g_new(struct khw_timer, 1);
    t->fire = fire;
    t->context = context;
    return g_timeout_add_full(G_PRIORITY_DEFAULT, ms, timer_fired, t, g_free);
}

void khw_cancel(unsigned source) { if (source) g_source_remove(source); }
