// ember._C._distributed_c10d: pybind11 bindings of ember/distributed. Each call that may block (the rendezvous,
// store waits, Work::wait) releases the GIL; collectives take Python lists of tensors and return Work handles.
// Timeouts are datetime.timedelta (pybind11/chrono.h).
#include "distributed.h"

#include <pybind11/chrono.h>
#include <pybind11/stl.h>

#include "ember/distributed.h"
#include "python_common.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using namespace ember::distributed;
using ms = std::chrono::milliseconds;

Tensor tensor_arg(py::handle h, const char* fn, const char* what) {
  if (!is_tensor(h.ptr())) {
    throw py::type_error(std::string(fn) + ": " + what + " must be a Tensor, got " +
                         std::string(py::str(py::type::handle_of(h).attr("__name__"))));
  }
  return unwrap(h.ptr());
}

std::vector<Tensor> tensor_list(const py::sequence& seq, const char* fn, const char* what) {
  std::vector<Tensor> out;
  out.reserve(seq.size());
  for (auto h : seq) out.push_back(tensor_arg(h, fn, what));
  return out;
}

std::vector<uint8_t> bytes_arg(const py::object& v) {
  std::string s = py::isinstance<py::str>(v) ? std::string(py::str(v)) : std::string(py::bytes(v));
  return {s.begin(), s.end()};
}

py::bytes to_bytes(const std::vector<uint8_t>& v) {
  return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

}  // namespace

void init_distributed(py::module_& parent) {
  py::module_ m = parent.def_submodule("_distributed_c10d", "ember/distributed: stores, Work, ProcessGroupGloo");

  py::enum_<ReduceOp>(m, "ReduceOp", "How a collective combines the ranks' values (torch.distributed.ReduceOp).")
      .value("SUM", ReduceOp::SUM)
      .value("AVG", ReduceOp::AVG)
      .value("PRODUCT", ReduceOp::PRODUCT)
      .value("MIN", ReduceOp::MIN)
      .value("MAX", ReduceOp::MAX)
      .value("BAND", ReduceOp::BAND)
      .value("BOR", ReduceOp::BOR)
      .value("BXOR", ReduceOp::BXOR);

  py::class_<Store, std::shared_ptr<Store>>(m, "Store", "A key-value store shared by the ranks (c10d::Store).")
      .def("set", [](Store& s, const std::string& key, const py::object& value) {
        auto v = bytes_arg(value);
        py::gil_scoped_release no_gil;
        s.set(key, v);
      }, py::arg("key"), py::arg("value"))
      .def("get", [](Store& s, const std::string& key) {
        std::vector<uint8_t> v;
        {
          py::gil_scoped_release no_gil;
          v = s.get(key);
        }
        return to_bytes(v);
      }, py::arg("key"))
      .def("add", [](Store& s, const std::string& key, int64_t value) {
        py::gil_scoped_release no_gil;
        return s.add(key, value);
      }, py::arg("key"), py::arg("value"))
      .def("check", [](Store& s, const std::vector<std::string>& keys) {
        py::gil_scoped_release no_gil;
        return s.check(keys);
      }, py::arg("keys"))
      .def("delete_key", [](Store& s, const std::string& key) {
        py::gil_scoped_release no_gil;
        return s.deleteKey(key);
      }, py::arg("key"))
      .def("num_keys", [](Store& s) {
        py::gil_scoped_release no_gil;
        return s.getNumKeys();
      })
      .def("wait", [](Store& s, const std::vector<std::string>& keys, std::optional<ms> timeout) {
        py::gil_scoped_release no_gil;
        if (timeout) s.wait(keys, *timeout);
        else s.wait(keys);
      }, py::arg("keys"), py::arg("timeout") = py::none())
      .def("set_timeout", [](Store& s, ms t) { s.setTimeout(t); }, py::arg("timeout"))
      .def_property_readonly("timeout", [](Store& s) { return s.getTimeout(); });

  py::class_<TCPStore, Store, std::shared_ptr<TCPStore>>(m, "TCPStore")
      .def(py::init([](const std::string& host, int port, std::optional<int64_t> world_size, bool is_master,
                       ms timeout, bool wait_for_workers) {
        if (port < 0 || port > 65535) throw py::value_error("TCPStore: port must be in [0, 65535], got " +
                                                             std::to_string(port));
        TCPStoreOptions o;
        o.port = static_cast<uint16_t>(port);
        o.isServer = is_master;
        o.numWorkers = world_size;
        o.waitWorkers = wait_for_workers;
        o.timeout = timeout;
        py::gil_scoped_release no_gil;
        return std::make_shared<TCPStore>(host, o);
      }), py::arg("host_name"), py::arg("port"), py::arg("world_size") = py::none(), py::arg("is_master") = false,
           py::arg("timeout") = Store::kDefaultTimeout, py::arg("wait_for_workers") = true)
      .def_property_readonly("port", &TCPStore::getPort)
      .def_property_readonly("host", &TCPStore::getHost);

  py::class_<FileStore, Store, std::shared_ptr<FileStore>>(m, "FileStore")
      .def(py::init([](const std::string& path, int world_size, ms timeout) {
        py::gil_scoped_release no_gil;
        return std::make_shared<FileStore>(path, world_size, timeout);
      }), py::arg("file_name"), py::arg("world_size") = -1, py::arg("timeout") = Store::kDefaultTimeout)
      .def_property_readonly("path", &FileStore::getPath);

  py::class_<PrefixStore, Store, std::shared_ptr<PrefixStore>>(m, "PrefixStore")
      .def(py::init<std::string, std::shared_ptr<Store>>(), py::arg("prefix"), py::arg("store"))
      .def_property_readonly("underlying_store", &PrefixStore::getUnderlyingStore);

  py::class_<Work, std::shared_ptr<Work>>(m, "Work", "An operation in flight (torch.distributed's Work).")
      .def("wait", [](Work& w, ms timeout) {
        py::gil_scoped_release no_gil;
        return w.wait(timeout);
      }, py::arg("timeout") = Work::kNoTimeout)
      .def("is_completed", &Work::isCompleted)
      .def("is_success", &Work::isSuccess)
      .def("exception", [](Work& w) -> py::object {
        auto e = w.exception();
        if (!e) return py::none();
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          return py::str(ex.what());
        }
      })
      .def("source_rank", &Work::sourceRank)
      .def("result", [](Work& w) {
        py::list out;
        for (const auto& t : w.result()) out.append(py::reinterpret_steal<py::object>(wrap(t)));
        return out;
      });

  // The collectives with Python arguments; ember/distributed/distributed_c10d.py gives them PyTorch's API.
  py::class_<ProcessGroup, std::shared_ptr<ProcessGroup>>(m, "ProcessGroup")
      .def("rank", &ProcessGroup::getRank)
      .def("size", &ProcessGroup::getSize)
      .def("name", &ProcessGroup::getBackendName)
      .def("allreduce", [](ProcessGroup& pg, py::handle t, ReduceOp op) {
        std::vector<Tensor> ts{tensor_arg(t, "all_reduce", "tensor")};
        py::gil_scoped_release no_gil;
        return pg.allreduce(ts, AllreduceOptions{op});
      }, py::arg("tensor"), py::arg("op") = ReduceOp::SUM)
      .def("broadcast", [](ProcessGroup& pg, py::handle t, int64_t root) {
        std::vector<Tensor> ts{tensor_arg(t, "broadcast", "tensor")};
        BroadcastOptions o;
        o.rootRank = root;
        py::gil_scoped_release no_gil;
        return pg.broadcast(ts, o);
      }, py::arg("tensor"), py::arg("root"))
      .def("reduce", [](ProcessGroup& pg, py::handle t, int64_t root, ReduceOp op) {
        std::vector<Tensor> ts{tensor_arg(t, "reduce", "tensor")};
        ReduceOptions o;
        o.reduceOp = op;
        o.rootRank = root;
        py::gil_scoped_release no_gil;
        return pg.reduce(ts, o);
      }, py::arg("tensor"), py::arg("root"), py::arg("op") = ReduceOp::SUM)
      .def("allgather", [](ProcessGroup& pg, const py::sequence& outs, py::handle in) {
        std::vector<std::vector<Tensor>> o{tensor_list(outs, "all_gather", "tensor_list's items")};
        std::vector<Tensor> i{tensor_arg(in, "all_gather", "tensor")};
        py::gil_scoped_release no_gil;
        return pg.allgather(o, i);
      })
      .def("_allgather_base", [](ProcessGroup& pg, py::handle out, py::handle in) {
        Tensor o = tensor_arg(out, "all_gather_into_tensor", "output_tensor");
        Tensor i = tensor_arg(in, "all_gather_into_tensor", "input_tensor");
        py::gil_scoped_release no_gil;
        return pg._allgather_base(o, i);
      })
      .def("reduce_scatter", [](ProcessGroup& pg, py::handle out, const py::sequence& ins, ReduceOp op) {
        std::vector<Tensor> o{tensor_arg(out, "reduce_scatter", "output")};
        std::vector<std::vector<Tensor>> i{tensor_list(ins, "reduce_scatter", "input_list's items")};
        py::gil_scoped_release no_gil;
        return pg.reduce_scatter(o, i, ReduceScatterOptions{op});
      })
      .def("_reduce_scatter_base", [](ProcessGroup& pg, py::handle out, py::handle in, ReduceOp op) {
        Tensor o = tensor_arg(out, "reduce_scatter_tensor", "output");
        Tensor i = tensor_arg(in, "reduce_scatter_tensor", "input");
        py::gil_scoped_release no_gil;
        return pg._reduce_scatter_base(o, i, ReduceScatterOptions{op});
      })
      .def("gather", [](ProcessGroup& pg, std::optional<py::sequence> outs, py::handle in, int64_t root) {
        std::vector<std::vector<Tensor>> o;
        if (outs) o.push_back(tensor_list(*outs, "gather", "gather_list's items"));
        std::vector<Tensor> i{tensor_arg(in, "gather", "tensor")};
        GatherOptions opts;
        opts.rootRank = root;
        py::gil_scoped_release no_gil;
        return pg.gather(o, i, opts);
      })
      .def("scatter", [](ProcessGroup& pg, py::handle out, std::optional<py::sequence> ins, int64_t root) {
        std::vector<Tensor> o{tensor_arg(out, "scatter", "tensor")};
        std::vector<std::vector<Tensor>> i;
        if (ins) i.push_back(tensor_list(*ins, "scatter", "scatter_list's items"));
        ScatterOptions opts;
        opts.rootRank = root;
        py::gil_scoped_release no_gil;
        return pg.scatter(o, i, opts);
      })
      .def("barrier", [](ProcessGroup& pg) {
        py::gil_scoped_release no_gil;
        return pg.barrier();
      })
      .def("send", [](ProcessGroup& pg, py::handle t, int dst, int tag) {
        std::vector<Tensor> ts{tensor_arg(t, "send", "tensor")};
        py::gil_scoped_release no_gil;
        return pg.send(ts, dst, tag);
      })
      .def("recv", [](ProcessGroup& pg, py::handle t, int src, int tag) {
        std::vector<Tensor> ts{tensor_arg(t, "recv", "tensor")};
        py::gil_scoped_release no_gil;
        return pg.recv(ts, src, tag);
      })
      .def("recv_anysource", [](ProcessGroup& pg, py::handle t, int tag) {
        std::vector<Tensor> ts{tensor_arg(t, "recv", "tensor")};
        py::gil_scoped_release no_gil;
        return pg.recvAnysource(ts, tag);
      });

  py::class_<ProcessGroupGloo, ProcessGroup, std::shared_ptr<ProcessGroupGloo>>(m, "ProcessGroupGloo")
      .def(py::init([](const std::shared_ptr<Store>& store, int rank, int size, ms timeout,
                       const std::string& hostname, const std::string& interface, int threads) {
        auto o = ProcessGroupGloo::Options::create(timeout);
        o->hostname = hostname;
        o->interface = interface;
        o->threads = threads;
        py::gil_scoped_release no_gil;
        // Destroyed without the GIL: joining the workers may wait for one that frees a tensor with Python hooks.
        return std::shared_ptr<ProcessGroupGloo>(new ProcessGroupGloo(store, rank, size, o), [](ProcessGroupGloo* pg) {
          if (PyGILState_Check()) {
            py::gil_scoped_release no_gil;
            delete pg;
          } else {
            delete pg;
          }
        });
      }), py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"), py::arg("hostname") = "",
           py::arg("interface") = "", py::arg("threads") = 2)
      .def_property_readonly("timeout", [](ProcessGroupGloo& pg) { return pg.getOptions().timeout; })
      .def("_shutdown", [](ProcessGroupGloo& pg) {
        py::gil_scoped_release no_gil;
        pg.shutdown();
      }, "Lets queued operations finish and stops the worker threads (destroy_process_group calls it).");
}

}  // namespace ember::python
