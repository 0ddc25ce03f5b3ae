#pragma once
// The archive writer shared by Ember's format (EmberFormat.cpp) and torch.save's zip format (TorchCheckpoint.cpp):
// a plan of entries written with libzip, atomically to a path or through a temporary file to a stream
// (Note [zip writer], Note [atomic save], Note [file-like save] in EmberFormat.cpp).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/Storage.h"

namespace ember::serialize::detail {

/// Everything an archive holds before it is written, in the order written: the first entry (Ember's manifest,
/// torch's data.pkl), the storages (their bytes are read in place), then small trailing entries.
struct ZipPlan {
  std::string manifest_name = "manifest.json";
  std::string manifest;
  std::vector<Storage> storages;  // keep the bytes alive until the zip is closed
  std::vector<std::string> entries;
  std::vector<std::pair<std::string, std::string>> trailing;
};

/// Writes the archive to path atomically (Note [atomic save]). Errors: RuntimeError naming path.
void write_plan(const ZipPlan& plan, const std::string& path);
/// Writes the archive to a temporary file and hands it to write() in pieces (Note [file-like save]).
void write_plan_to_stream(const ZipPlan& plan, const std::function<void(const void*, size_t)>& write);

}  // namespace ember::serialize::detail
