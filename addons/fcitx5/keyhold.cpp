// Keyhold's fcitx5 addon: where fcitx5 is the user's input method, the companion (keyhold-session)
// types through it. fcitx5 loads this at its start; it listens on $XDG_RUNTIME_DIR/keyhold-fcitx5
// for the user's own companion, commits what it sends to the focused input context, shows the
// picker as fcitx5's own candidate list, and tells it what the companion needs to keep characters
// behind the keys before them: how many key events have passed fcitx5. It takes no key and
// switches no engine: the user's engine and its composition stay as they were.
//
// The protocol: one line a message, fields split by tabs, `\t` `\n` `\\` escaped in a field.
//   companion -> addon: commit ID TEXT | sync ID | panel CURSOR AUX CANDIDATE... | hide
//   addon -> companion: hello fcitx5 VERSION | keys COUNT | committed ID | refused ID
//                       | synced ID | picked INDEX | focus 0 | focus 1 PURPOSE PROGRAM
//                       | text USEC (the focused program said its text changed, at USEC on
//                         CLOCK_MONOTONIC)
// `synced ID` comes once fcitx5 and its compositors have handled everything before the sync.
// The addon never waits for the companion: one that does not read what it is sent is dropped.

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <fcitx-utils/capabilityflags.h>
#include <fcitx-utils/event.h>
#include <fcitx-utils/handlertable.h>
#include <fcitx-utils/log.h>
#include <fcitx/addonfactory.h>
#include <fcitx/addoninstance.h>
#include <fcitx/addonmanager.h>
#include <fcitx/candidatelist.h>
#include <fcitx/event.h>
#include <fcitx/inputcontext.h>
#include <fcitx/inputpanel.h>
#include <fcitx/instance.h>
#include <fcitx/userinterface.h>
#include <fcitx-module/wayland/wayland_public.h>
#include <fcitx-module/xcb/xcb_public.h>

// The fcitx5 it was built against (pkg-config, from the Makefile).
#ifndef FCITX5_VERSION
#define FCITX5_VERSION "unknown"
#endif

namespace {

constexpr const char *socketName = "keyhold-fcitx5";
/// A companion's line longer than this is no line of the protocol: it is dropped.
constexpr size_t maxLine = 64 * 1024;

std::string escaped(const std::string &field) {
    std::string out;
    out.reserve(field.size());
    for (char c : field) {
        switch (c) {
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\\': out += "\\\\"; break;
        default: out += c;
        }
    }
    return out;
}

std::vector<std::string> fields(const std::string &line) {
    std::vector<std::string> out(1);
    for (size_t i = 0; i < line.size(); i++) {
        char c = line[i];
        if (c == '\t') { out.emplace_back(); continue; }
        if (c == '\\' && i + 1 < line.size()) {
            char n = line[++i];
            out.back() += n == 't' ? '\t' : n == 'n' ? '\n' : n;
            continue;
        }
        out.back() += c;
    }
    return out;
}

/// A candidate of the picker: a click on it is the companion's pick (its callout index).
class PickerWord : public fcitx::CandidateWord {
public:
    PickerWord(const std::string &text, int index, std::function<void(int)> picked)
        : fcitx::CandidateWord(fcitx::Text(text)), index_(index), picked_(std::move(picked)) {}
    void select(fcitx::InputContext *) const override { picked_(index_); }

private:
    int index_;
    std::function<void(int)> picked_;
};

} // namespace

class KeyholdAddon : public fcitx::AddonInstance {
public:
    explicit KeyholdAddon(fcitx::Instance *instance) : instance_(instance) {
        listen();
        using fcitx::EventType;
        using fcitx::EventWatcherPhase;
        // Before the user's engine, which stops the keys it takes: every key event counts.
        watchers_.emplace_back(instance_->watchEvent(EventType::InputContextKeyEvent, EventWatcherPhase::PreInputMethod,
                                                     [this](fcitx::Event &) { keyPassed(); }));
        // A program's word that its text changed (its surrounding text), which is how the companion
        // knows the keys before a character have reached the text.
        watchers_.emplace_back(instance_->watchEvent(EventType::InputContextSurroundingTextUpdated, EventWatcherPhase::PostInputMethod,
                                                     [this](fcitx::Event &event) {
                                                         auto &e = static_cast<fcitx::InputContextEvent &>(event);
                                                         if (clientFd_ >= 0 && e.inputContext() == focused())
                                                             send({"text", std::to_string(fcitx::now(CLOCK_MONOTONIC))});
                                                     }));
        for (auto type : {EventType::InputContextFocusIn, EventType::InputContextFocusOut,
                          EventType::InputContextCapabilityChanged}) {
            watchers_.emplace_back(instance_->watchEvent(type, EventWatcherPhase::PostInputMethod,
                                                         [this](fcitx::Event &) { sendFocus(); }));
        }
        // fcitx5 flushes a Wayland or X connection only after reading from it: a commit made
        // outside a key event would wait there for the compositor's next event.
        if (auto *module = instance_->addonManager().addon("wayland", true)) {
            waylandCreated_ = module->call<fcitx::IWaylandModule::addConnectionCreatedCallback>(
                [this](const std::string &name, wl_display *display, fcitx::FocusGroup *) { waylands_[name] = display; });
            waylandClosed_ = module->call<fcitx::IWaylandModule::addConnectionClosedCallback>(
                [this](const std::string &name, wl_display *display) {
                    waylands_.erase(name);
                    waylandClosed(display);
                });
        }
        if (auto *module = instance_->addonManager().addon("xcb", true)) {
            xcbCreated_ = module->call<fcitx::IXCBModule::addConnectionCreatedCallback>(
                [this](const std::string &name, xcb_connection_t *conn, int, fcitx::FocusGroup *) { xcbs_[name] = conn; });
            xcbClosed_ = module->call<fcitx::IXCBModule::addConnectionClosedCallback>(
                [this](const std::string &name, xcb_connection_t *) { xcbs_.erase(name); });
        }
    }

    ~KeyholdAddon() override {
        dropClient();
        for (auto &callback : callbacks_) wl_callback_destroy(callback.first);
        listenEvent_.reset();
        if (listenFd_ >= 0) {
            close(listenFd_);
            unlink(path_.c_str());
        }
    }

private:
    void listen() {
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        if (!runtime || !*runtime) {
            FCITX_WARN() << "keyhold: no XDG_RUNTIME_DIR, so no socket for the companion";
            return;
        }
        path_ = std::string(runtime) + "/" + socketName;
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (path_.size() >= sizeof(address.sun_path)) return;
        path_.copy(address.sun_path, path_.size());
        listenFd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (listenFd_ < 0) return;
        unlink(path_.c_str());   // left by an fcitx5 that ended without cleaning up
        mode_t old = umask(0177);
        int bound = bind(listenFd_, reinterpret_cast<sockaddr *>(&address), sizeof(address));
        umask(old);
        if (bound != 0 || ::listen(listenFd_, 4) != 0) {
            FCITX_WARN() << "keyhold: cannot listen on " << path_ << ": " << strerror(errno);
            close(listenFd_);
            listenFd_ = -1;
            return;
        }
        listenEvent_ = instance_->eventLoop().addIOEvent(listenFd_, fcitx::IOEventFlag::In,
                                                         [this](fcitx::EventSourceIO *, int, fcitx::IOEventFlags) {
                                                             accept();
                                                             return true;
                                                         });
    }

    /// The user's own companion only; a new one replaces the one before (a restarted companion).
    void accept() {
        int fd = accept4(listenFd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        ucred peer{};
        socklen_t size = sizeof(peer);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != getuid()) {
            close(fd);
            return;
        }
        dropClient();
        clientFd_ = fd;
        clientEvent_ = instance_->eventLoop().addIOEvent(
            fd, {fcitx::IOEventFlag::In, fcitx::IOEventFlag::Hup, fcitx::IOEventFlag::Err},
            [this](fcitx::EventSourceIO *, int, fcitx::IOEventFlags) {
                readClient();
                return true;
            });
        keys_ = 0;
        send({"hello", "fcitx5", FCITX5_VERSION});
        sendFocus();
    }

    void dropClient() {
        hidePanel();
        clientEvent_.reset();
        if (clientFd_ >= 0) close(clientFd_);
        clientFd_ = -1;
        input_.clear();
        syncs_.clear();
    }

    void readClient() {
        char buffer[4096];
        while (clientFd_ >= 0) {
            ssize_t n = read(clientFd_, buffer, sizeof(buffer));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) return;
            if (n <= 0) { dropClient(); return; }
            input_.append(buffer, n);
            size_t start = 0, end;
            while (clientFd_ >= 0 && (end = input_.find('\n', start)) != std::string::npos) {
                handle(fields(input_.substr(start, end - start)));
                start = end + 1;
            }
            if (clientFd_ < 0) return;
            input_.erase(0, start);
            if (input_.size() > maxLine) { dropClient(); return; }
        }
    }

    void handle(const std::vector<std::string> &message) {
        const std::string &verb = message[0];
        if (verb == "commit" && message.size() == 3) {
            auto *ic = focused();
            if (!ic) { send({"refused", message[1]}); return; }
            ic->commitString(message[2]);
            flushDisplays();
            send({"committed", message[1]});
        } else if (verb == "sync" && message.size() == 2) {
            startSync(message[1]);
        } else if (verb == "panel" && message.size() >= 3) {
            showPanel(std::atoi(message[1].c_str()), message[2],
                      std::vector<std::string>(message.begin() + 3, message.end()));
        } else if (verb == "hide") {
            hidePanel();
        }
    }

    /// `synced ID` once fcitx5 has handled all it read before the line (its loop is one thread)
    /// and each compositor has handled all fcitx5 sent it before (a wl_display.sync on each
    /// Wayland connection): the keys fcitx5 passed on are then on their way to the program, not
    /// waiting in a busy compositor to reach the program together with the character.
    void startSync(const std::string &id) {
        uint64_t serial = ++syncSerial_;
        int remaining = 0;
        for (auto &display : waylands_) {
            wl_callback *callback = wl_display_sync(display.second);
            if (!callback) continue;
            wl_callback_add_listener(callback, &syncListener, this);
            callbacks_[callback] = {serial, display.second};
            wl_display_flush(display.second);
            remaining++;
        }
        if (remaining == 0) { send({"synced", id}); return; }
        syncs_[serial] = {id, remaining};
    }

    static void syncDone(void *data, wl_callback *callback, uint32_t) {
        static_cast<KeyholdAddon *>(data)->compositorSynced(callback);
    }
    static constexpr wl_callback_listener syncListener = {syncDone};

    void compositorSynced(wl_callback *callback) {
        auto found = callbacks_.find(callback);
        if (found == callbacks_.end()) return;
        uint64_t serial = found->second.first;
        callbacks_.erase(found);
        wl_callback_destroy(callback);
        answerSync(serial);
    }

    /// One of a sync's compositors answered (or its connection closed): the last one answers it.
    void answerSync(uint64_t serial) {
        auto sync = syncs_.find(serial);
        if (sync == syncs_.end()) return;   // its companion has gone
        if (--sync->second.second > 0) return;
        std::string id = sync->second.first;
        syncs_.erase(sync);
        send({"synced", id});
    }

    /// A Wayland connection closed: its syncs will not be answered by it. (Its callbacks go with
    /// the connection.)
    void waylandClosed(wl_display *display) {
        for (auto it = callbacks_.begin(); it != callbacks_.end();) {
            if (it->second.second != display) { ++it; continue; }
            uint64_t serial = it->second.first;
            it = callbacks_.erase(it);
            answerSync(serial);
        }
    }

    fcitx::InputContext *focused() {
        auto *ic = instance_->mostRecentInputContext();
        return ic && ic->hasFocus() ? ic : nullptr;
    }

    /// The candidates numbered 1…n in fcitx5's panel at the caret, `cursor` highlighted (-1:
    /// none), `auxiliary` (the highlighted one's name) above them.
    void showPanel(int cursor, const std::string &auxiliary, const std::vector<std::string> &candidates) {
        auto *ic = focused();
        if (!ic) return;
        if (panel_.get() && panel_.get() != ic) hidePanel();
        auto list = std::make_unique<fcitx::CommonCandidateList>();
        std::vector<std::string> labels;
        for (size_t i = 0; i < candidates.size(); i++) {
            labels.push_back(std::to_string((i + 1) % 10) + " ");
            list->append<PickerWord>(candidates[i], int(i) + 1, [this](int index) { send({"picked", std::to_string(index)}); });
        }
        list->setLabels(labels);
        list->setPageSize(std::max<int>(1, int(candidates.size())));
        list->setLayoutHint(fcitx::CandidateLayoutHint::Horizontal);
        if (cursor >= 0 && size_t(cursor) < candidates.size()) list->setGlobalCursorIndex(cursor);
        ic->inputPanel().setCandidateList(std::move(list));
        ic->inputPanel().setAuxUp(fcitx::Text(auxiliary));
        ic->updateUserInterface(fcitx::UserInterfaceComponent::InputPanel);
        panel_ = ic->watch();
    }

    void hidePanel() {
        auto *ic = panel_.get();
        panel_.unwatch();
        if (!ic) return;
        ic->inputPanel().setCandidateList(nullptr);
        ic->inputPanel().setAuxUp(fcitx::Text());
        ic->updateUserInterface(fcitx::UserInterfaceComponent::InputPanel);
    }

    void keyPassed() {
        keys_++;
        if (clientFd_ >= 0) send({"keys", std::to_string(keys_)});
    }

    /// What has the focus: a password field, a terminal or text, and the program (where the
    /// frontend says).
    void sendFocus() {
        if (clientFd_ < 0) return;
        auto *ic = focused();
        if (!ic) { send({"focus", "0"}); return; }
        auto flags = ic->capabilityFlags();
        const char *purpose = flags.test(fcitx::CapabilityFlag::Password) ? "password"
                              : flags.test(fcitx::CapabilityFlag::Terminal) ? "terminal" : "text";
        send({"focus", "1", purpose, ic->program()});
    }

    void flushDisplays() {
        for (auto &display : waylands_) wl_display_flush(display.second);
        for (auto &conn : xcbs_) xcb_flush(conn.second);
    }

    /// Never waits: a companion that lets its socket fill is dropped (it connects again).
    void send(std::initializer_list<std::string> message) {
        if (clientFd_ < 0) return;
        std::string line;
        for (const auto &field : message) {
            if (!line.empty()) line += '\t';
            line += escaped(field);
        }
        line += '\n';
        ssize_t n = ::send(clientFd_, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n != ssize_t(line.size())) dropClient();
    }

    fcitx::Instance *instance_;
    std::string path_;
    int listenFd_ = -1;
    int clientFd_ = -1;
    std::string input_;
    uint64_t keys_ = 0;
    /// The syncs under way (their ids and how many compositors have yet to answer), and the
    /// compositors' callbacks (which sync, on which connection).
    uint64_t syncSerial_ = 0;
    std::unordered_map<uint64_t, std::pair<std::string, int>> syncs_;
    std::unordered_map<wl_callback *, std::pair<uint64_t, wl_display *>> callbacks_;
    fcitx::TrackableObjectReference<fcitx::InputContext> panel_;
    std::unique_ptr<fcitx::EventSourceIO> listenEvent_, clientEvent_;
    std::vector<std::unique_ptr<fcitx::HandlerTableEntry<fcitx::EventHandler>>> watchers_;
    std::unordered_map<std::string, wl_display *> waylands_;
    std::unordered_map<std::string, xcb_connection_t *> xcbs_;
    std::unique_ptr<fcitx::HandlerTableEntry<fcitx::WaylandConnectionCreated>> waylandCreated_;
    std::unique_ptr<fcitx::HandlerTableEntry<fcitx::WaylandConnectionClosed>> waylandClosed_;
    std::unique_ptr<fcitx::HandlerTableEntry<fcitx::XCBConnectionCreated>> xcbCreated_;
    std::unique_ptr<fcitx::HandlerTableEntry<fcitx::XCBConnectionClosed>> xcbClosed_;
};

class KeyholdAddonFactory : public fcitx::AddonFactory {
    fcitx::AddonInstance *create(fcitx::AddonManager *manager) override { return new KeyholdAddon(manager->instance()); }
};

FCITX_ADDON_FACTORY(KeyholdAddonFactory)
