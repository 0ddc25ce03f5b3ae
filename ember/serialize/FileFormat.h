#pragma once
// Telling the formats Ember reads apart by content: Ember's archive, torch.save's zip and legacy formats,
// safetensors, GGUF. serialize::load (EmberFormat.h) and Python's ember.load use it, so a file loads whatever
// its name.
#include <string_view>

namespace ember::serialize {

class ZipReader;

/// What a file holds, judged by its content.
enum class FileFormat { Unknown, Zip, EmberArchive, TorchZip, TorchLegacy, Safetensors, Gguf };

/// The format of bytes that start a file (its first 16 bytes when there are that many); a zip archive is Zip here,
/// told apart by zip_format().
FileFormat sniff_format(std::string_view head);
/// EmberArchive (manifest.json), TorchZip (<archive>/data.pkl) or Unknown.
FileFormat zip_format(const ZipReader& zip);

}  // namespace ember::serialize
