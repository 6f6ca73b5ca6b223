// A shared library opened on the first call of one of its functions instead of at exec (CSystemd,
// CALSA): a C target defines the functions the program calls with KEYHOLD_FORWARD, each looking
// its symbol up in the library once; the program is not linked with the library.
#ifndef KEYHOLD_LAZY_LIBRARY_H
#define KEYHOLD_LAZY_LIBRARY_H

struct keyhold_lazy_library {
    const char *soname;
    int tried;      // under a lock of CLinuxShim.c's
    void *handle;
};

#define KEYHOLD_LAZY_LIBRARY(SONAME) { SONAME, 0, 0 }

/// Opens the library if not yet tried (dlopen, RTLD_LAZY | RTLD_LOCAL): 1 when it is open.
int keyhold_lazy_open(struct keyhold_lazy_library *library);

/// `name` in the library, opening it first; NULL without the library or the symbol.
void *keyhold_lazy_symbol(struct keyhold_lazy_library *library, const char *name);

// RET NAME(PARAMS) forwards ARGS to LIBRARY's NAME, or returns FAIL without it. The pointer is
// looked up once; threads racing on the first call store the same value.
#define KEYHOLD_FORWARD(LIBRARY, RET, NAME, PARAMS, ARGS, FAIL)                         \
    RET NAME PARAMS {                                                                   \
        static RET (*function) PARAMS;                                                  \
        RET (*f) PARAMS = __atomic_load_n(&function, __ATOMIC_ACQUIRE);                 \
        if (!f) {                                                                       \
            f = (RET (*) PARAMS)keyhold_lazy_symbol(&(LIBRARY), #NAME);                 \
            if (!f) return FAIL;                                                        \
            __atomic_store_n(&function, f, __ATOMIC_RELEASE);                           \
        }                                                                               \
        return f ARGS;                                                                  \
    }

// The same for a function that returns nothing (also looked up once).
#define KEYHOLD_FORWARD_VOID(LIBRARY, NAME, PARAMS, ARGS)                               \
    void NAME PARAMS {                                                                  \
        static void (*function) PARAMS;                                                 \
        void (*f) PARAMS = __atomic_load_n(&function, __ATOMIC_ACQUIRE);                \
        if (!f) {                                                                       \
            f = (void (*) PARAMS)keyhold_lazy_symbol(&(LIBRARY), #NAME);                \
            if (!f) return;                                                             \
            __atomic_store_n(&function, f, __ATOMIC_RELEASE);                           \
        }                                                                               \
        f ARGS;                                                                         \
    }

#endif
