import Glibc

/// epoll, timerfd, signalfd and inotify. Swift's Glibc module does not import <sys/epoll.h>,
/// <sys/timerfd.h>, <sys/signalfd.h> or <sys/inotify.h>, so the functions are looked up once
/// in libc with dlsym and called through `@convention(c)` pointers (the real C ABI), and the
/// few constants and struct layouts are spelled out here (identical on x86_64 and aarch64).
enum LinuxCalls {
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias TimerfdCreate = @convention(c) (Int32, Int32) -> Int32
    typealias TimerfdSettime = @convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32
    typealias Signalfd = @convention(c) (Int32, UnsafePointer<sigset_t>?, Int32) -> Int32
    typealias InotifyInit1 = @convention(c) (Int32) -> Int32
    typealias InotifyAddWatch = @convention(c) (Int32, UnsafePointer<CChar>?, UInt32) -> Int32

    nonisolated(unsafe) static let epollCreate1: EpollCreate1 = symbol("epoll_create1")
    nonisolated(unsafe) static let epollCtl: EpollCtl = symbol("epoll_ctl")
    nonisolated(unsafe) static let epollWait: EpollWait = symbol("epoll_wait")
    nonisolated(unsafe) static let timerfdCreate: TimerfdCreate = symbol("timerfd_create")
    nonisolated(unsafe) static let timerfdSettime: TimerfdSettime = symbol("timerfd_settime")
    nonisolated(unsafe) static let signalfd: Signalfd = symbol("signalfd")
    nonisolated(unsafe) static let inotifyInit1: InotifyInit1 = symbol("inotify_init1")
    nonisolated(unsafe) static let inotifyAddWatch: InotifyAddWatch = symbol("inotify_add_watch")

    private static func symbol<T>(_ name: String) -> T {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else {
            fatalError("keyhold: libc has no \(name)")
        }
        return unsafeBitCast(pointer, to: T.self)
    }

    // Flags shared with open(2): O_CLOEXEC and O_NONBLOCK.
    static let cloexec = Int32(O_CLOEXEC)
    static let nonblock = Int32(O_NONBLOCK)

    // <sys/epoll.h>
    static let epollIn: UInt32 = 0x001
    static let epollPri: UInt32 = 0x002
    static let epollErr: UInt32 = 0x008
    static let epollHup: UInt32 = 0x010
    static let epollCtlAdd: Int32 = 1
    static let epollCtlDel: Int32 = 2
    /// `struct epoll_event` is packed on x86_64 (12 bytes), naturally aligned elsewhere (16).
    #if arch(x86_64) || arch(i386)
    static let epollEventSize = 12
    static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    static let epollDataOffset = 8
    #endif

    // <sys/timerfd.h>
    static let timerAbsolute: Int32 = 1

    // <sys/inotify.h>
    static let inAttrib: UInt32 = 0x004
    static let inCreate: UInt32 = 0x100
    static let inDelete: UInt32 = 0x200
    static let inMovedTo: UInt32 = 0x080
    static let inQueueOverflow: UInt32 = 0x4000
    static let inIgnored: UInt32 = 0x8000
    /// `struct inotify_event` without its name: int wd, uint32 mask, cookie, len.
    static let inotifyHeaderSize = 16

    /// `struct signalfd_siginfo` is 128 bytes; ssi_signo is its first field.
    static let signalfdInfoSize = 128
}
