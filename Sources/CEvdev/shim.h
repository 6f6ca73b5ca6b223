#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
