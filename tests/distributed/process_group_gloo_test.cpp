// ember::distributed: the stores and ProcessGroupGloo, with the ranks of a group as threads of this process (each
// with its own process group and store client), connected over the loopback interface.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "ember/distributed.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;

std::string temp_path(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("ember_dist_" + name + "_" + std::to_string(::getpid()) + "_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  return p.string();
}

std::shared_ptr<ProcessGroupGloo::Options> options(std::chrono::milliseconds timeout = 20s) {
  auto o = ProcessGroupGloo::Options::create(timeout);
  o->hostname = "127.0.0.1";
  return o;
}

/// Runs fn(rank, pg) on `world` threads, each with a ProcessGroupGloo over a FileStore on one file; rethrows the
/// first exception of any thread (after all have ended).
void run_ranks(int world, const std::function<void(int, ProcessGroupGloo&)>& fn,
               std::chrono::milliseconds timeout = 20s) {
  std::string path = temp_path("store");
  std::vector<std::exception_ptr> errors(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        auto store = std::make_shared<FileStore>(path, world, 20s);
        ProcessGroupGloo pg(store, r, world, options(timeout));
        fn(r, pg);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  std::filesystem::remove(path);
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

Tensor rank_values(int rank, int64_t n, DType dtype) {
  return ember::arange(n, TensorOptions().dtype(kFloat64)).add(1 + rank * 10).to(dtype);
}

std::vector<double> as_doubles(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

TEST(ProcessGroupGloo, AllreduceEveryOpAndDtype) {
  constexpr int kWorld = 3;
  run_ranks(kWorld, [](int rank, ProcessGroupGloo& pg) {
    for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kInt16, kInt32, kInt64, kUInt8}) {
      for (ReduceOp op : {ReduceOp::SUM, ReduceOp::MIN, ReduceOp::MAX}) {
        std::vector<Tensor> ts{rank_values(rank, 4, dt)};
        pg.allreduce(ts, AllreduceOptions{op})->wait();
        for (int i = 0; i < 4; ++i) {
          double expect = op == ReduceOp::SUM ? 3 * (1 + i) + 30 : op == ReduceOp::MIN ? 1 + i : 21 + i;
          EXPECT_EQ(as_doubles(ts[0])[static_cast<size_t>(i)], expect) << dt << " " << reduce_op_name(op);
        }
      }
    }
    std::vector<Tensor> avg{rank_values(rank, 4, kFloat32)};
    pg.allreduce(avg, AllreduceOptions{ReduceOp::AVG})->wait();
    EXPECT_EQ(as_doubles(avg[0]), (std::vector<double>{11, 12, 13, 14}));
    std::vector<Tensor> prod{ember::full({2}, rank + 2, TensorOptions().dtype(kInt64))};
    pg.allreduce(prod, AllreduceOptions{ReduceOp::PRODUCT})->wait();
    EXPECT_EQ(as_doubles(prod[0]), (std::vector<double>{24, 24}));
    std::vector<Tensor> flags{ember::full({1}, rank == 1, TensorOptions().dtype(kBool))};
    pg.allreduce(flags, AllreduceOptions{ReduceOp::MAX})->wait();
    EXPECT_TRUE(flags[0].item<bool>());
  });
}

TEST(ProcessGroupGloo, RootedAndGatheringCollectives) {
  constexpr int kWorld = 3;
  run_ranks(kWorld, [](int rank, ProcessGroupGloo& pg) {
    std::vector<Tensor> b{rank_values(rank, 3, kInt64)};
    pg.broadcast(b, BroadcastOptions{2})->wait();
    EXPECT_EQ(as_doubles(b[0]), (std::vector<double>{21, 22, 23}));

    std::vector<Tensor> r{rank_values(rank, 2, kFloat32)};
    ReduceOptions ro;
    ro.rootRank = 1;
    pg.reduce(r, ro)->wait();
    auto expected = rank == 1 ? std::vector<double>{33, 36} : as_doubles(rank_values(rank, 2, kFloat32));
    EXPECT_EQ(as_doubles(r[0]), expected);

    std::vector<std::vector<Tensor>> outs{{}};
    for (int q = 0; q < kWorld; ++q) outs[0].push_back(ember::zeros({2}, TensorOptions().dtype(kFloat64)));
    std::vector<Tensor> in{rank_values(rank, 2, kFloat64)};
    pg.allgather(outs, in)->wait();
    for (int q = 0; q < kWorld; ++q) {
      EXPECT_EQ(as_doubles(outs[0][static_cast<size_t>(q)]), as_doubles(rank_values(q, 2, kFloat64)));
    }

    Tensor flat = ember::zeros({kWorld * 2}, TensorOptions().dtype(kFloat64));
    pg._allgather_base(flat, in[0])->wait();
    EXPECT_EQ(as_doubles(flat), (std::vector<double>{1, 2, 11, 12, 21, 22}));

    std::vector<Tensor> rs_out{ember::zeros({2}, TensorOptions().dtype(kInt32))};
    std::vector<std::vector<Tensor>> rs_in{{}};
    for (int q = 0; q < kWorld; ++q) {
      rs_in[0].push_back(ember::full({2}, q * 100 + rank, TensorOptions().dtype(kInt32)));
    }
    pg.reduce_scatter(rs_out, rs_in)->wait();
    EXPECT_EQ(as_doubles(rs_out[0]), (std::vector<double>{rank * 300.0 + 3, rank * 300.0 + 3}));

    std::vector<std::vector<Tensor>> g;
    if (rank == 0) {
      g.push_back({});
      for (int q = 0; q < kWorld; ++q) g[0].push_back(ember::zeros({2}, TensorOptions().dtype(kFloat64)));
    }
    GatherOptions go;
    go.rootRank = 0;
    pg.gather(g, in, go)->wait();
    if (rank == 0) {
      EXPECT_EQ(as_doubles(g[0][2]), (std::vector<double>{21, 22}));
    }

    std::vector<Tensor> s_out{ember::zeros({2}, TensorOptions().dtype(kFloat32))};
    std::vector<std::vector<Tensor>> s_in;
    if (rank == 1) {
      s_in.push_back({});
      for (int q = 0; q < kWorld; ++q) s_in[0].push_back(ember::full({2}, q * 5, TensorOptions().dtype(kFloat32)));
    }
    ScatterOptions so;
    so.rootRank = 1;
    pg.scatter(s_out, s_in, so)->wait();
    EXPECT_EQ(as_doubles(s_out[0]), (std::vector<double>{rank * 5.0, rank * 5.0}));

    pg.barrier()->wait();
  });
}

TEST(ProcessGroupGloo, NonContiguousTensorsAndAsyncWork) {
  run_ranks(2, [](int rank, ProcessGroupGloo& pg) {
    Tensor base = rank_values(rank, 6, kFloat32).reshape({2, 3});
    std::vector<Tensor> t{base.t()};  // a transposed view: written back in place
    auto work = pg.allreduce(t);
    EXPECT_TRUE(work->wait());
    EXPECT_TRUE(work->isCompleted() && work->isSuccess());
    EXPECT_EQ(as_doubles(base), (std::vector<double>{12, 14, 16, 18, 20, 22}));
    // Several operations in flight, waited for in order.
    std::vector<std::vector<Tensor>> many;
    std::vector<std::shared_ptr<Work>> works;
    for (int i = 0; i < 8; ++i) {
      many.push_back({ember::full({16}, i + rank, TensorOptions().dtype(kInt64))});
      works.push_back(pg.allreduce(many.back()));
    }
    for (int i = 0; i < 8; ++i) {
      works[static_cast<size_t>(i)]->wait();
      EXPECT_EQ(many[static_cast<size_t>(i)][0].sum().item<int64_t>(), 16 * (2 * i + 1));
    }
  });
}

TEST(ProcessGroupGloo, SendRecvWithTagsAndAnySource) {
  constexpr int kWorld = 3;
  run_ranks(kWorld, [](int rank, ProcessGroupGloo& pg) {
    if (rank == 0) {
      std::vector<Tensor> a{ember::zeros({4})}, b{ember::zeros({4})};
      auto wa = pg.recv(a, 1, 5);
      auto wb = pg.recv(b, 1, 6);
      wb->wait();
      wa->wait();
      EXPECT_EQ(as_doubles(a[0]), (std::vector<double>{5, 5, 5, 5}));
      EXPECT_EQ(as_doubles(b[0]), (std::vector<double>{6, 6, 6, 6}));
      std::vector<Tensor> any{ember::zeros({1})};
      auto w = pg.recvAnysource(any, 9);
      w->wait();
      EXPECT_EQ(w->sourceRank(), 2);
      EXPECT_EQ(any[0].item<float>(), 2.0f);
    } else if (rank == 1) {
      std::vector<Tensor> b{ember::full({4}, 6, TensorOptions().dtype(kFloat32))};
      std::vector<Tensor> a{ember::full({4}, 5, TensorOptions().dtype(kFloat32))};
      auto wb = pg.send(b, 0, 6);
      auto wa = pg.send(a, 0, 5);
      wa->wait();
      wb->wait();
    } else {
      std::vector<Tensor> t{ember::full({1}, 2, TensorOptions().dtype(kFloat32))};
      pg.send(t, 0, 9)->wait();
    }
  });
}

TEST(ProcessGroupGloo, MismatchedSizesRaiseOnEveryRank) {
  std::vector<std::string> messages(2);
  run_ranks(2, [&](int rank, ProcessGroupGloo& pg) {
    std::vector<Tensor> t{ember::ones({rank == 0 ? 3 : 100000})};
    try {
      pg.allreduce(t)->wait();
    } catch (const Error& e) {
      messages[static_cast<size_t>(rank)] = e.what();
    }
    // The group still works afterwards: nothing reached Gloo.
    std::vector<Tensor> ok{ember::ones({2})};
    pg.allreduce(ok)->wait();
    EXPECT_EQ(as_doubles(ok[0]), (std::vector<double>{2, 2}));
  });
  for (const auto& m : messages) {
    EXPECT_NE(m.find("rank 0: allreduce of 3 float32 elements, SUM; rank 1: allreduce of 100000 float32"),
              std::string::npos)
        << m;
  }
}

TEST(ProcessGroupGloo, RecvOfAnotherSizeRaisesAndTheSenderCompletes) {
  std::string message;
  run_ranks(2, [&](int rank, ProcessGroupGloo& pg) {
    if (rank == 0) {
      std::vector<Tensor> t{ember::arange(5, TensorOptions().dtype(kFloat64))};
      pg.send(t, 1, 4)->wait();
    } else {
      std::vector<Tensor> t{ember::zeros({2})};
      try {
        pg.recv(t, 0, 4)->wait();
      } catch (const Error& e) {
        message = e.what();
      }
    }
    // Both ranks go on: the mismatched message was drained.
    std::vector<Tensor> ok{ember::ones({3})};
    pg.allreduce(ok)->wait();
    EXPECT_EQ(as_doubles(ok[0]), (std::vector<double>{2, 2, 2}));
    // isend/irecv posted in the same order on both ranks complete whatever the order of the waits.
    std::vector<Tensor> out{ember::full({2}, rank, TensorOptions().dtype(kFloat32))}, in{ember::zeros({2})};
    auto s = pg.send(out, 1 - rank, 0);
    auto r = pg.recv(in, 1 - rank, 0);
    s->wait();
    r->wait();
    EXPECT_EQ(as_doubles(in[0]), (std::vector<double>{1.0 - rank, 1.0 - rank}));
  });
  EXPECT_NE(message.find("rank 0 sent 5 float64 elements with tag 4, but the tensor of this recv on rank 1 holds 2 "
                         "float32 elements"),
            std::string::npos)
      << message;
}

TEST(ProcessGroupGloo, ArgumentErrorsAtTheCall) {
  run_ranks(2, [](int rank, ProcessGroupGloo& pg) {
    std::vector<Tensor> t{ember::ones({2})};
    EXPECT_THROW(pg.broadcast(t, BroadcastOptions{7}), Error);
    std::vector<std::vector<Tensor>> outs{{ember::zeros({2}), ember::zeros({3})}};
    EXPECT_THROW(pg.allgather(outs, t), Error);
    std::vector<Tensor> nc{ember::zeros({2, 3}).t()};
    EXPECT_THROW(pg.send(nc, 1 - rank, 0), Error);
    AllreduceOptions band;
    band.reduceOp = ReduceOp::BAND;
    EXPECT_THROW(pg.allreduce(t, band), Error);
    EXPECT_THROW(pg.send(t, rank, 0), Error);
  });
  auto store = std::make_shared<FileStore>(temp_path("bad_rank"), 1, 1s);
  EXPECT_THROW(ProcessGroupGloo(store, 2, 2, options()), Error);
}

TEST(ProcessGroupGloo, RecvWithoutSenderTimesOut) {
  std::string message;
  run_ranks(2, [&](int rank, ProcessGroupGloo& pg) {
    if (rank == 0) {
      std::vector<Tensor> t{ember::zeros({1})};
      auto w = pg.recv(t, 1, 3);
      auto start = std::chrono::steady_clock::now();
      try {
        w->wait();
      } catch (const Error& e) {
        message = e.what();
      }
      EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    } else {
      std::this_thread::sleep_for(1500ms);  // connected, but sending nothing
    }
  }, 500ms);
  EXPECT_NE(message.find("ProcessGroupGloo::recv failed on rank 0 of 2"), std::string::npos) << message;
  EXPECT_NE(message.find("Timed out"), std::string::npos) << message;
}

TEST(ProcessGroupGloo, OverTCPStore) {
  auto server = std::make_shared<TCPStore>("127.0.0.1", TCPStoreOptions{0, true, std::nullopt, false, 10s});
  uint16_t port = server->getPort();
  std::vector<std::exception_ptr> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      try {
        std::shared_ptr<Store> store = server;
        if (r != 0) {
          store = std::make_shared<TCPStore>("127.0.0.1", TCPStoreOptions{port, false, std::nullopt, true, 20s});
        }
        ProcessGroupGloo pg(std::make_shared<PrefixStore>("g0", store), r, 2, options());
        std::vector<Tensor> t{ember::full({3}, r + 1.5, TensorOptions().dtype(kFloat32))};
        pg.allreduce(t)->wait();
        EXPECT_EQ(as_doubles(t[0]), (std::vector<double>{4, 4, 4}));
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

TEST(Stores, TCPAndFileStoreOperations) {
  auto tcp = std::make_shared<TCPStore>("127.0.0.1", TCPStoreOptions{0, true, 1, true, 2s});
  std::string path = temp_path("ops");
  auto file = std::make_shared<FileStore>(path, 1, 2s);
  std::vector<std::shared_ptr<Store>> stores{tcp, file};
  for (const auto& store : stores) {
    store->set("k", std::string("v1"));
    EXPECT_EQ(store->get("k"), (std::vector<uint8_t>{'v', '1'}));
    EXPECT_EQ(store->add("n", 3), 3);
    EXPECT_EQ(store->add("n", 4), 7);
    EXPECT_TRUE(store->check({"k", "n"}));
    EXPECT_FALSE(store->check({"absent"}));
    EXPECT_EQ(store->getNumKeys(), 2);  // k and n
    EXPECT_TRUE(store->deleteKey("k"));
    EXPECT_FALSE(store->check({"k"}));
    try {
      store->wait({"absent"}, 100ms);
      ADD_FAILURE() << "wait did not time out";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("timed out after 100 ms waiting for key(s) 'absent'"), std::string::npos);
    }
    store->set("text", std::string("x"));
    EXPECT_THROW(store->add("text", 1), Error);
  }
  stores.clear();
  file.reset();
  EXPECT_FALSE(std::filesystem::exists(path));  // the last worker removed the file
  // A second server on the same port fails with the port named.
  try {
    TCPStore again("127.0.0.1", TCPStoreOptions{tcp->getPort(), true, std::nullopt, false, 1s});
    ADD_FAILURE() << "bound a port in use";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on port " + std::to_string(tcp->getPort())),
              std::string::npos) << e.what();
  }
}

/// Expects fn to raise an ember::Error whose message contains `part`.
void expect_error(const std::function<void()>& fn, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// Note [store limits]: a set past the bytes or keys a store may hold is refused with an error naming the limit,
// the store unchanged and still serving; an add past int64 too.
TEST(Stores, LimitsRefuseWithAnError) {
  StoreLimits limits;
  limits.max_total_bytes = 1000;
  limits.max_keys = 4;  // the store's own counter (workers, references) is one
  auto tcp = std::make_shared<TCPStore>("127.0.0.1", TCPStoreOptions{0, true, 1, true, 2s}, limits);
  std::string path = temp_path("limits");
  auto file = std::make_shared<FileStore>(path, 1, 2s, limits);
  for (const std::shared_ptr<Store>& store : std::vector<std::shared_ptr<Store>>{tcp, file}) {
    expect_error([&] { store->set("big", std::string(1000, 'x')); }, "more than its limit of 1000 bytes");
    EXPECT_FALSE(store->check({"big"}));
    store->set("a", std::string(900, 'x'));
    expect_error([&] { store->set("b", std::string(100, 'x')); }, "more than its limit of 1000 bytes");
    store->set("a", std::string(10, 'x'));  // replacing frees the old value's bytes
    store->set("b", std::string(100, 'x'));
    store->set("c", "y");
    expect_error([&] { store->set("d", "z"); }, "cannot add key 'd': the store holds 4 keys (limit)");
    store->set("c", "z");  // an existing key may change
    EXPECT_EQ(store->get("c"), (std::vector<uint8_t>{'z'}));
    EXPECT_TRUE(store->deleteKey("c"));
    EXPECT_EQ(store->add("d", INT64_MAX), INT64_MAX);
    expect_error([&] { store->add("d", 1); }, "overflows a 64-bit integer");
    EXPECT_EQ(store->add("d", -1), INT64_MAX - 1);
    EXPECT_EQ(store->getNumKeys(), 3);
  }
}

// A store file written by another program is read within the limits: a broken record, a length past
// max_arg_bytes, more keys than max_keys each raise naming the file and the record's byte offset.
TEST(Stores, FileStoreRecordsAreReadWithinLimits) {
  auto record = [](const std::string& key, uint32_t len, const std::string& value) {
    std::string r(4, '\0');
    uint32_t klen = static_cast<uint32_t>(key.size());
    std::memcpy(r.data(), &klen, 4);
    r += key + std::string(4, '\0');
    std::memcpy(r.data() + 4 + key.size(), &len, 4);
    return r + value;
  };
  StoreLimits limits;
  limits.max_keys = 2;
  detail::StoreState state(limits);
  detail::read_file_store_records(record("a", 1, "x") + record("a", 0xFFFFFFFFu, ""), state, "f", 0);
  EXPECT_EQ(state.num_keys(), 0);
  expect_error([&] { detail::read_file_store_records(record("a", 1, "x") + "\1\0", state, "f", 100); },
               "'f' is not a store file (byte 110: a truncated record)");
  expect_error([&] { detail::read_file_store_records(record("k", 0xFFFFFFFEu, "v"), state, "f", 0); },
               "a value of 4294967294 bytes, more than the limit of 1 GiB");
  expect_error([&] { detail::read_file_store_records(record("b", 0, "") + record("c", 0, ""), state, "f", 0); },
               "'f' byte 9: Store: cannot add key 'c': the store holds 2 keys (limit)");
}

}  // namespace
}  // namespace ember::distributed
