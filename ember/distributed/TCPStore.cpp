// TCPStore: the server (a thread per connection over one shared map) and the client. The frames and the server's
// request loop are TCPStoreProtocol.cpp's (Note [tcp store protocol]).
#include "ember/distributed/TCPStore.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <thread>

#include "ember/base/Error.h"
#include "ember/distributed/TCPStoreProtocol.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using detail::ByteReader;
using detail::TCPStoreFrame;
const std::string kWorkersKey = "__ember_tcpstore_workers__";

std::string errno_text(int e) { return std::strerror(e); }

Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
  return timeout == Store::kNoTimeout ? Clock::time_point::max() : Clock::now() + timeout;
}

// Waits until fd is readable; false when the deadline passed first.
bool wait_readable(int fd, Clock::time_point deadline) {
  for (;;) {
    int ms = -1;
    if (deadline != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      ms = static_cast<int>(std::min<int64_t>(left, 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, ms);
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return true;  // let the read report the error
  }
}

// Reads n bytes. Returns 0 on success, -1 on end of stream or error (errno set, 0 for EOF), -2 on timeout.
int read_exact(int fd, void* buf, size_t n, Clock::time_point deadline) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    if (!wait_readable(fd, deadline)) return -2;
    ssize_t r = ::recv(fd, p, n, 0);
    if (r == 0) {
      errno = 0;
      return -1;
    }
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return 0;
}

bool write_all(int fd, const void* buf, size_t n) {
  const auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    ssize_t r = ::send(fd, p, n, MSG_NOSIGNAL);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// A socket as a ByteReader, reading until the deadline; code is read_exact's last result (-2: timed out).
class SocketReader : public ByteReader {
 public:
  SocketReader(int fd, Clock::time_point deadline) : fd_(fd), deadline_(deadline) {}
  bool read(void* buf, size_t n) override { return (code = read_exact(fd_, buf, n, deadline_)) == 0; }
  int code = 0;

 private:
  int fd_;
  Clock::time_point deadline_;
};

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

}  // namespace

namespace detail {

// The server: an accept thread and one thread per connection over one map. Destruction shuts every socket
// down and joins every thread.
class TCPStoreServer {
 public:
  TCPStoreServer(uint16_t port, const StoreLimits& limits) : state_(limits) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* res = nullptr;
    std::string service = std::to_string(port);
    int rc = ::getaddrinfo(nullptr, service.c_str(), &hints, &res);
    EMBER_CHECK(rc == 0, "TCPStore: cannot resolve the server's address: {}", gai_strerror(rc));
    int last_errno = 0;
    // IPv6 first (dual stack, so IPv4 clients reach it too), then IPv4.
    for (int family : {AF_INET6, AF_INET}) {
      for (addrinfo* a = res; a && listen_fd_ < 0; a = a->ai_next) {
        if (a->ai_family != family) continue;
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
          last_errno = errno;
          continue;
        }
        int one = 1, zero = 0;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
          listen_fd_ = fd;
        } else {
          last_errno = errno;
          ::close(fd);
          if (last_errno == EADDRINUSE) break;
        }
      }
      if (listen_fd_ >= 0 || last_errno == EADDRINUSE) break;
    }
    ::freeaddrinfo(res);
    EMBER_CHECK(listen_fd_ >= 0,
                "TCPStore: the server cannot listen on port {}: {}{}", port, errno_text(last_errno),
                last_errno == EADDRINUSE ? " (another process uses the port; choose another MASTER_PORT)" : "");
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~TCPStoreServer() {
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    accept_thread_.join();
    ::close(listen_fd_);
    // The accept thread has ended, so connections_ changes no more.
    for (auto& c : connections_) ::shutdown(c.fd, SHUT_RDWR);
    for (auto& c : connections_) {
      c.thread.join();
      ::close(c.fd);
    }
  }

  uint16_t port() const { return port_; }

 private:
  struct Connection {
    int fd;
    std::thread thread;
  };

  void accept_loop() {
    while (!stopping_) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // shut down (or out of descriptors: the clients then time out with a clear error)
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      connections_.push_back({fd, std::thread([this, fd] { serve(fd); })});
    }
  }

  void serve(int fd) {
    SocketReader in(fd, Clock::time_point::max());
    detail::serve_requests(in, state_, mutex_, [fd](const std::vector<uint8_t>& reply) {
      return write_all(fd, reply.data(), reply.size());
    });
    ::shutdown(fd, SHUT_RDWR);  // a malformed request or one past a limit: the client sees the connection close
  }

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::list<Connection> connections_;  // written by the accept thread only, read after it is joined
  std::mutex mutex_;                   // guards state_
  detail::StoreState state_;
};

}  // namespace detail

TCPStore::TCPStore(std::string host, const TCPStoreOptions& opts, const StoreLimits& limits)
    : Store(opts.timeout), host_(std::move(host)), port_(opts.port) {
  if (opts.isServer) {
    server_ = std::make_unique<detail::TCPStoreServer>(opts.port, limits);
    port_ = server_->port();
  }
  EMBER_CHECK(port_ != 0, "TCPStore: a client needs the server's port (got 0)");
  // Connect, retrying until the server is up or the timeout expires.
  auto deadline = deadline_after(timeout_);
  std::string last_error = "no address";
  std::chrono::milliseconds pause(10);
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    std::string service = std::to_string(port_);
    int rc = ::getaddrinfo(host_.c_str(), service.c_str(), &hints, &res);
    if (rc != 0) {
      last_error = gai_strerror(rc);
    } else {
      for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
          last_error = errno_text(errno);
          continue;
        }
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          fd_ = fd;
        } else {
          last_error = errno_text(errno);
          ::close(fd);
        }
      }
      ::freeaddrinfo(res);
    }
    if (fd_ >= 0) break;
    if (Clock::now() + pause > deadline) {
      server_.reset();
      EMBER_FAIL("TCPStore: could not connect to the server at {}:{} within {} (last error: {})", host_, port_,
                 detail::format_duration(timeout_), last_error);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  add(kWorkersKey, 1);
  if (opts.isServer && opts.waitWorkers && opts.numWorkers) wait_workers(*opts.numWorkers);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

void TCPStore::wait_workers(int64_t n) {
  auto deadline = deadline_after(timeout_);
  std::chrono::milliseconds pause(1);
  int64_t have = 0;
  while ((have = add(kWorkersKey, 0)) < n) {
    if (Clock::now() > deadline) {
      EMBER_FAIL("TCPStore: only {} of {} workers connected to the server on port {} within {}", have, n, port_,
                 detail::format_duration(timeout_));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

std::pair<uint8_t, std::vector<std::vector<uint8_t>>> TCPStore::request(
    uint8_t cmd, const std::vector<std::vector<uint8_t>>& args) {
  std::lock_guard<std::mutex> lock(mutex_);
  EMBER_CHECK(fd_ >= 0, "TCPStore: not connected");
  auto out = detail::encode_frame(cmd, args);
  EMBER_CHECK(write_all(fd_, out.data(), out.size()), "TCPStore: sending to the server at {}:{} failed: {}", host_,
              port_, errno_text(errno));
  SocketReader in(fd_, deadline_after(timeout_));
  TCPStoreFrame reply;
  std::string why;
  auto r = detail::read_frame(in, StoreLimits{}, reply, &why);
  if (r == detail::FrameRead::kRefused) EMBER_FAIL("TCPStore: a broken reply from the server at {}:{}: {}", host_,
                                                   port_, why);
  if (r == detail::FrameRead::kEnd && in.code == -2) {
    EMBER_FAIL("TCPStore: the server at {}:{} did not answer within {}", host_, port_,
               detail::format_duration(timeout_));
  }
  if (r == detail::FrameRead::kEnd) {
    EMBER_FAIL("TCPStore: the server at {}:{} closed the connection ({})", host_, port_,
               errno ? errno_text(errno) : "end of stream; did the process holding the server exit?");
  }
  if (reply.head == detail::kStoreError) {  // a limit of the server's (Note [store limits])
    EMBER_FAIL("{} (server {}:{})", reply.values.size() == 1 ? text(reply.values[0]) : "TCPStore: an error",
               host_, port_);
  }
  return {reply.head, std::move(reply.values)};
}

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  request(detail::kStoreSet, {bytes(key), value});
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  wait({key}, timeout_);
  auto [status, values] = request(detail::kStoreGet, {bytes(key)});
  EMBER_CHECK(status == 0 && values.size() == 1, "TCPStore::get: key '{}' was deleted while being read", key);
  return values[0];
}

int64_t TCPStore::add(const std::string& key, int64_t value) {
  auto [status, values] = request(detail::kStoreAdd, {bytes(key), bytes(std::to_string(value))});
  EMBER_CHECK(status == 0 && values.size() == 1, "TCPStore::add: key '{}' does not hold a decimal integer", key);
  return detail::parse_counter(key, values[0]);
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::vector<std::vector<uint8_t>> args;
  for (const auto& k : keys) args.push_back(bytes(k));
  return request(detail::kStoreCheck, args).first == 0;
}

bool TCPStore::deleteKey(const std::string& key) { return request(detail::kStoreDelete, {bytes(key)}).first == 0; }

int64_t TCPStore::getNumKeys() {
  auto [status, values] = request(detail::kStoreNumKeys, {});
  return detail::parse_counter("<number of keys>", values.at(0)) - 1;  // not counting the workers' counter
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  auto deadline = deadline_after(timeout);
  std::chrono::milliseconds pause(1);
  while (!check(keys)) {
    if (Clock::now() > deadline) {
      EMBER_FAIL("TCPStore: timed out after {} waiting for key(s) {} (server {}:{})", detail::format_duration(timeout),
                 detail::join_keys(keys), host_, port_);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace ember::distributed
