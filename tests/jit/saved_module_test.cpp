// The saved-module file (ember/jit/runtime/SavedModule.h): round trips of a module hierarchy, tensor constants,
// extra files; and bad files: missing, truncated, byte-flipped, not a module, newer version, unknown op,
// malformed fields.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "TestModules.h"
#include "TestSupport.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/dispatch/LoadLibrary.h"
#include "ember/jit/runtime/SavedModule.h"
#include "ember/jit/runtime/Interpreter.h"
#include "ember/serialize/EmberFormat.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;
using jittest::expect_same;
using jittest::Net;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ember_jit_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void write_file(const std::string& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary);
  f << data;
}

TEST(SavedModule, RoundTripRunsTheSame) {
  Net n;
  n.conv.eval();  // a submodule's own flag is kept
  std::string p = temp_path("net.ember");
  save(n.net, p, {{"meta.txt", "hello"}});
  ExtraFiles extra;
  Module m = load(p, &extra);
  EXPECT_EQ(extra.at("meta.txt"), "hello");
  EXPECT_TRUE(m.is_training());
  EXPECT_FALSE(m.submodule("conv").is_training());
  Tensor x = randn({2, 1, 8, 8});
  expect_same(m.forward({x}).to_tensor(), n.net.forward({x}).to_tensor());
  auto a = n.net.named_parameters(), b = m.named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    expect_same(a[i].second, b[i].second);
  }
  EXPECT_EQ(m.named_buffers().size(), 1u);
  EXPECT_EQ(m.attr("scale").to_double(), 0.5);
  EXPECT_EQ(m.method_names(), std::vector<std::string>{"forward"});
  m.eval();
  expect_same(m.forward({x}).to_tensor(), n.reference(x, false));
  std::filesystem::remove(p);
}

// load(std::istream&), as torch::jit::load(std::istream&): the same module as from the file; errors name the
// stream.
TEST(SavedModule, LoadFromAStream) {
  Net n;
  std::string p = temp_path("stream.ember");
  save(n.net, p, {{"meta.txt", "hello"}});
  std::ifstream file(p, std::ios::binary);
  ExtraFiles extra;
  Module m = load(file, &extra);
  EXPECT_EQ(extra.at("meta.txt"), "hello");
  Tensor x = randn({2, 1, 8, 8});
  expect_same(m.forward({x}).to_tensor(), n.net.forward({x}).to_tensor());
  std::istringstream truncated(read_file(p).substr(0, 100));
  EXPECT_TRUE(contains(expect_error([&] { load(truncated); }).what(), "load: '<stream>': "));
  std::istringstream empty;
  EXPECT_TRUE(contains(expect_error([&] { load(empty); }).what(), "'<stream>': the file is empty"));
  std::filesystem::remove(p);
}

// Note [saved functions]: a function's graph as a module with forward, saved and loaded.
TEST(SavedModule, SavedFunctionIsAModuleWithForward) {
  Function f("f", R"IR(graph(%x : Float(2, 3), %y : Float(2, 3)):
  %one : int = prim::Constant[value=1]()
  %s : Tensor = aten::add(%x, %y, %one)
  %m : Tensor = aten::mul(%s, %x)
  return (%m)
)IR");
  Module m = function_module(f.graph());
  EXPECT_EQ(m.type()->name(), kFunctionModuleClass);
  EXPECT_EQ(m.method_names(), std::vector<std::string>{"forward"});
  EXPECT_EQ(f.graph().inputs().size(), 2u);  // the function's own graph has no %self added
  Tensor x = randn({5, 3}), y = randn({5, 3});  // not the traced shape: only the kind of value is checked
  expect_same(m.forward({x, y}).to_tensor(), f({x, y}).to_tensor());
  std::string p = temp_path("function.ember");
  save(m, p);
  Module loaded = load(p);
  std::filesystem::remove(p);
  EXPECT_EQ(loaded.type()->name(), kFunctionModuleClass);
  expect_same(loaded.forward({x, y}).to_tensor(), mul(add(x, y), x));

  // Note [input type errors]: what was expected and what was given, never the traced shape.
  std::string e = expect_error([&] { loaded.forward({x, IValue(int64_t{3})}); }).what();
  EXPECT_TRUE(contains(e, "input 1 (y : Tensor) expected a value of type Tensor but got int 3")) << e;
  EXPECT_FALSE(contains(e, "Float(2, 3)")) << e;
  e = expect_error([&] { loaded.forward({x}); }).what();
  EXPECT_TRUE(contains(e, "expected 2 inputs (x : Tensor, y : Tensor) but got 1")) << e;
  e = expect_error([&] { loaded.forward({x, IValue::tuple({IValue(x), IValue(1.5)})}); }).what();
  EXPECT_TRUE(contains(e, "expected a value of type Tensor but got tuple (")) << e;
}

// A traced function saved by Python (tests/jit/fixtures/make_fixtures.py) runs in C++ and returns what PyTorch
// 1.13's saved trace of the same function returns, on inputs of another batch size than the trace's.
TEST(SavedModule, TracedFunctionSavedByPythonMatchesTorch) {
  const std::string dir = EMBER_TEST_FIXTURES;
  Module m = load(dir + "/traced_function.pt");
  EXPECT_EQ(m.type()->name(), kFunctionModuleClass);
  std::map<std::string, Tensor> io;
  const IValue recorded = serialize::load(dir + "/traced_function_io.ember");
  for (const auto& [k, v] : recorded.to_dict())
    io[k.to_string()] = v.to_tensor();
  std::vector<IValue> out = m.forward({io.at("x"), io.at("y")}).to_tuple();
  ASSERT_EQ(out.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    Tensor got = out[static_cast<size_t>(i)].to_tensor(), want = io.at("out" + std::to_string(i));
    ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
    std::vector<float> g = ember::testing::values<float>(got), w = ember::testing::values<float>(want);
    for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(g[k], w[k], 1e-6) << "output " << i << " element " << k;
  }
}

TEST(SavedModule, TensorConstantsAndAttributeTypes) {
  Module m("__torch__.C");
  Tensor c = randn({3});
  std::vector<Tensor> table{c};
  ParseOptions po;
  po.tensor_table = &table;
  std::unordered_map<std::string, std::shared_ptr<ClassType>> types{{"__torch__.C", m.type()}};
  po.class_types = &types;
  m.register_attribute("dims", IValue(std::vector<int64_t>{0}));
  m.define_method("forward", parse_ir(R"IR(graph(%self : __torch__.C, %x : Tensor):
  %c : Tensor = prim::Constant[value=<Tensor:0>]()
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %c, %one)
  return (%y)
)IR", po));
  std::string p = temp_path("const.ember");
  save(m, p);
  Module l = load(p);
  Tensor x = randn({3});
  expect_same(l.forward({x}).to_tensor(), add(x, c));
  EXPECT_EQ(l.type()->find_attribute("dims")->str(), "int[]");
  EXPECT_EQ(l.attr("dims").to_int_list().vec(), std::vector<int64_t>{0});
  std::filesystem::remove(p);
}

TEST(SavedModule, LoadedModuleFromManyThreads) {
  Net n;
  std::string p = temp_path("threads.ember");
  save(n.net, p);
  Module m = load(p);
  std::filesystem::remove(p);
  Tensor x = randn({1, 1, 8, 8});
  Tensor want = m.forward({x}).to_tensor();
  std::vector<int> bad(8, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      for (int k = 0; k < 100; ++k)
        if (!equal(m.forward({x}).to_tensor(), want)) ++bad[static_cast<size_t>(t)];
    });
  for (auto& t : ts) t.join();
  for (int b : bad) EXPECT_EQ(b, 0);
}

TEST(SavedModule, FailedSaveLeavesTheOldFile) {
  Net n;
  std::string p = temp_path("atomic.ember");
  save(n.net, p);
  const std::string before = read_file(p);
  Module bad("__torch__.Bad");
  bad.register_attribute("where", IValue(Device("cpu")));  // a Device: not something an archive holds
  expect_error([&] { save(bad, p); }, ErrorKind::Type);
  EXPECT_EQ(read_file(p), before);
  load(p);
  std::filesystem::remove(p);
}

// An archive with a hand-written root object (through the plain archive writer).
std::string write_root(const std::string& name, IValue root) {
  std::string p = temp_path(name);
  serialize::save(root, p);
  return p;
}

IValue module_archive(const std::string& method_text, int64_t version = 1) {
  IValue mod = IValue::dict({{IValue("class"), IValue("__torch__.M")},
                             {IValue("training"), IValue(true)},
                             {IValue("slots"), IValue::list({})},
                             {IValue("methods"), IValue::list({IValue::tuple({IValue("forward"),
                                                                              IValue(method_text)})})}});
  return IValue::dict({{IValue("format"), IValue("ember-jit-module")},
                       {IValue("version"), IValue(version)},
                       {IValue("root"), mod},
                       {IValue("tensor_constants"), IValue::list({})},
                       {IValue("extra_files"), IValue::dict({})}});
}

TEST(SavedModule, UnknownOpNamesTheOpAndTheLibrary) {
  std::string p = write_root("unknown.ember", module_archive(R"IR(graph(%self : __torch__.M, %x : Tensor):
  %y : Tensor = myns::fancy(%x)
  return (%y)
)IR"));
  auto e = expect_error([&] { load(p); });
  EXPECT_TRUE(contains(e.what(), "jit::load: '" + p + "'"));
  EXPECT_TRUE(contains(e.what(), "myns::fancy"));
  EXPECT_TRUE(contains(e.what(), "library"));
  std::filesystem::remove(p);
}

// An archive whose forward calls myns::fancy, with op_sources recording where it came from.
IValue archive_with_source(const std::string& kind, const std::string& detail) {
  IValue a = module_archive(R"IR(graph(%self : __torch__.M, %x : Tensor):
  %y : Tensor = myns::fancy(%x)
  return (%y)
)IR");
  std::vector<std::pair<IValue, IValue>> items = a.to_dict();
  items.emplace_back(IValue("op_sources"),
                     IValue::dict({{IValue("myns::fancy"), IValue::tuple({IValue(kind), IValue(detail)})}}));
  return IValue::dict(std::move(items));
}

TEST(SavedModule, MissingOpSaysWhatToLoad) {
  // Note [op sources]: an op of a custom library names the library to load; a Python op says it needs Python.
  std::string p = write_root("libop.ember", archive_with_source("library", "/opt/ext/libmyns.so"));
  auto e = expect_error([&] { load(p); });
  EXPECT_TRUE(contains(e.what(), "myns::fancy"));
  EXPECT_TRUE(contains(e.what(), "ember::load_library(\"/opt/ext/libmyns.so\")"));
  p = write_root("pyop.ember", archive_with_source("python", "python:model.py:12"));
  e = expect_error([&] { load(p); });
  EXPECT_TRUE(contains(e.what(), "defined in Python (python:model.py:12"));
  EXPECT_TRUE(contains(e.what(), "without Python cannot run it"));
  p = write_root("badsrc.ember", archive_with_source("elsewhere", ""));
  EXPECT_TRUE(contains(expect_error([&] { load(p); }).what(), "unknown kind 'elsewhere'"));
  std::filesystem::remove(p);
}

TEST(SavedModule, RecordsTheLibraryOfCustomOps) {
  load_library(EMBER_TEST_MYOPS);
  Module m("__torch__.UsesMyops");
  m.define_method("forward", R"IR(graph(%self : __torch__.UsesMyops, %x : Tensor):
  %a : float = prim::Constant[value=0.5]()
  %y : Tensor = myops::fused_act(%x, %a)
  %z : Tensor = aten::relu(%y)
  return (%z)
)IR");
  std::string p = temp_path("custom.ember");
  save(m, p);
  IValue raw = serialize::load(p);
  bool found = false;
  for (const auto& [k, v] : raw.to_dict()) {
    if (k.to_string() != "op_sources") continue;
    ASSERT_EQ(v.to_dict().size(), 1u);  // aten ops are not listed
    EXPECT_EQ(v.to_dict()[0].first.to_string(), "myops::fused_act");
    EXPECT_EQ(v.to_dict()[0].second.to_tuple()[0].to_string(), "library");
    EXPECT_EQ(v.to_dict()[0].second.to_tuple()[1].to_string(), EMBER_TEST_MYOPS);
    found = true;
  }
  EXPECT_TRUE(found);
  Module back = load(p);  // the library is loaded here, so the model runs
  Tensor x = ember::testing::make_tensor<float>({-1.0f, 2.0f});
  expect_same(back.forward({IValue(x)}).to_tensor(), m.forward({IValue(x)}).to_tensor());
  std::filesystem::remove(p);
}

TEST(SavedModule, BadFilesGiveClearErrors) {
  // Missing file.
  EXPECT_TRUE(contains(expect_error([&] { load(temp_path("missing.ember")); }).what(), "missing.ember"));
  // A plain archive, not a module.
  std::string p = write_root("plain.ember", IValue::dict({{IValue("format"), IValue("x")}}));
  EXPECT_TRUE(contains(expect_error([&] { load(p); }).what(), "not a saved module"));
  // What ember.save writes (a state dict): named as such, with what reads it.
  p = write_root("state_dict.ember", IValue::dict({{IValue("fc.weight"), IValue(ember::zeros({2, 2}))}}));
  const std::string state_dict_error = expect_error([&] { load(p); }).what();
  EXPECT_TRUE(contains(state_dict_error, "not a module saved by ember.jit.save / ember::jit::save but a dict of 1 "
                                         "entries as ember.save writes it"))
      << state_dict_error;
  EXPECT_TRUE(contains(state_dict_error, "ember::serialize::load"));
  // A newer version.
  p = write_root("newer.ember", module_archive("graph(%self : __torch__.M):\n  return (%self)\n", 99));
  EXPECT_TRUE(contains(expect_error([&] { load(p); }).what(), "format version 99"));
  // Malformed IR text: line and column.
  p = write_root("badir.ember", module_archive("graph(%self : __torch__.M):\n  return (%nope\n"));
  auto e = expect_error([&] { load(p); });
  EXPECT_TRUE(contains(e.what(), "method __torch__.M.forward"));
  EXPECT_TRUE(contains(e.what(), "line 2"));
  // A field of the wrong kind.
  IValue bad = IValue::dict({{IValue("format"), IValue("ember-jit-module")}, {IValue("version"), IValue(1)},
                             {IValue("root"), IValue(3)}, {IValue("tensor_constants"), IValue::list({})},
                             {IValue("extra_files"), IValue::dict({})}});
  p = write_root("badroot.ember", bad);
  EXPECT_TRUE(contains(expect_error([&] { load(p); }).what(), "the archive[\"root\"] is a int, expected a dict"));
  std::filesystem::remove(p);
}

// Loading is linear in the archive's size however its module tree is shaped. Not timed tests: each of these took
// from a minute to many minutes before (ctest's timeout stops them), and takes a second or so now.
IValue module_node(const std::string& cls, std::vector<IValue> slots, std::vector<IValue> methods) {
  return IValue::dict({{IValue("class"), IValue(cls)}, {IValue("training"), IValue(true)},
                       {IValue("slots"), IValue::list(std::move(slots))},
                       {IValue("methods"), IValue::list(std::move(methods))}});
}
Module load_root(const IValue& root) {
  std::istringstream in(serialize::save_to_bytes(
      IValue::dict({{IValue("format"), IValue("ember-jit-module")}, {IValue("version"), IValue(1)},
                    {IValue("root"), root}, {IValue("tensor_constants"), IValue::list({})},
                    {IValue("extra_files"), IValue::dict({})}})));
  return load(in);
}

// Note [load error paths]: 320 nested submodules whose names are 100,000 characters long (a 67 KB file once
// deflated) took 85 s and more than 4 GB.
TEST(SavedModule, DeepTreeWithLongNamesLoadsInLinearTime) {
  const std::string name(100000, 'a');
  IValue node = module_node("__torch__.M", {}, {});
  for (int i = 0; i < 320; ++i)
    node = module_node("__torch__.M", {IValue::tuple({IValue(name), IValue("module"), node, IValue("Any")})}, {});
  Module m = load_root(node);
  int depth = 0;
  for (auto children = m.named_children(); !children.empty(); children = children[0].second.named_children())
    ++depth;
  EXPECT_EQ(depth, 320);
}

// One module with 50,000 attributes (the slot and class-type tables were searched linearly for each: 60 s), and
// one with 20,000 submodules and 20,000 methods (each method collected the class types of every submodule: 12 s).
TEST(SavedModule, WideModulesLoadInLinearTime) {
  std::vector<IValue> attrs;
  for (int i = 0; i < 50000; ++i)
    attrs.push_back(IValue::tuple({IValue("a" + std::to_string(i)), IValue("attribute"), IValue(i), IValue("int")}));
  Module m = load_root(module_node("__torch__.M", std::move(attrs), {}));
  EXPECT_EQ(m.attr("a49999").to_int(), 49999);
  std::vector<IValue> subs, methods;
  for (int i = 0; i < 20000; ++i) {
    subs.push_back(IValue::tuple({IValue("m" + std::to_string(i)), IValue("module"),
                                  module_node("__torch__.S", {}, {}), IValue("Any")}));
    methods.push_back(IValue::tuple({IValue("f" + std::to_string(i)),
                                     IValue("graph(%self : __torch__.M):\n  return ()\n")}));
  }
  m = load_root(module_node("__torch__.M", std::move(subs), std::move(methods)));
  EXPECT_EQ(m.method_names().size(), 20000u);
  EXPECT_EQ(m.named_children().size(), 20000u);
}

TEST(SavedModule, TruncatedAndFlippedFilesNeverCrash) {
  Net n;
  std::string p = temp_path("good.ember");
  save(n.net, p);
  const std::string good = read_file(p);
  std::string q = temp_path("damaged.ember");
  size_t errors = 0, loaded = 0;
  for (size_t len = 0; len < good.size(); len += std::max<size_t>(1, good.size() / 97)) {
    write_file(q, good.substr(0, len));
    try {
      load(q);
      ++loaded;
    } catch (const Error& e) {
      ++errors;
      EXPECT_TRUE(contains(e.what(), "load: '")) << e.what();
    }
  }
  EXPECT_EQ(loaded, 0u);  // every truncation is detected
  for (size_t i = 0; i < good.size(); i += std::max<size_t>(1, good.size() / 211)) {
    std::string d = good;
    d[i] = static_cast<char>(d[i] ^ 0x5a);
    write_file(q, d);
    try {
      load(q);  // caught by the zip's CRCs, the manifest checks or the IR parser; never a crash
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0u);
  std::filesystem::remove(p);
  std::filesystem::remove(q);
}

}  // namespace
