// Which reader a file goes to (FileFormat.h), and serialize::load / load_from_bytes, which read any format
// whose content is a value tree: Ember's archive, torch.save's formats, safetensors (a dict of tensors).
#include "ember/serialize/FileFormat.h"

#include <cstring>

#include "ember/serialize/EmberFormat.h"
#include "ember/serialize/MappedFile.h"
#include "ember/serialize/Safetensors.h"
#include "ember/serialize/TorchCheckpoint.h"
#include "ember/serialize/ZipReader.h"

namespace ember::serialize {

FileFormat sniff_format(std::string_view head) {
  if (head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06")) return FileFormat::Zip;
  // Legacy torch.save: PROTO 2 (or higher), then LONG1 of 10 bytes, the magic number's first byte.
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0x80 && static_cast<unsigned char>(head[2]) == 0x8a &&
      head[3] == 10)
    return FileFormat::TorchLegacy;
  if (head.starts_with("GGUF")) return FileFormat::Gguf;
  // safetensors: an 8-byte little-endian header length, then the JSON header, which starts with '{'.
  if (head.size() >= 9 && head[8] == '{') {
    uint64_t n;
    std::memcpy(&n, head.data(), 8);
    if (n >= 2 && n < (uint64_t{1} << 40)) return FileFormat::Safetensors;
  }
  return FileFormat::Unknown;
}

FileFormat zip_format(const ZipReader& zip) {
  if (zip.find(kManifestEntry) >= 0) return FileFormat::EmberArchive;
  for (const std::string& name : zip.names()) {
    const size_t slash = name.find('/');
    if (slash != std::string::npos && name.substr(slash) == "/data.pkl") return FileFormat::TorchZip;
  }
  return FileFormat::Unknown;
}

namespace {

IValue load_zip(ZipReader& zip, Attributes* attrs) {
  if (zip_format(zip) == FileFormat::TorchZip) return to_ivalue(read_torch_zip(zip), attrs, zip.file());
  return read_archive(zip, attrs);  // Ember's archive, or its error for a zip that is neither
}

// A safetensors file as a dict of its tensors in name order.
IValue safetensors_dict(const SafetensorsFile& f) {
  std::vector<std::pair<IValue, IValue>> items;
  for (const std::string& k : f.keys()) items.emplace_back(IValue(k), IValue(f.get_tensor(k)));
  return IValue::dict(std::move(items));
}

[[noreturn]] void gguf_file(std::string_view name) {
  EMBER_FAIL("load: '{}': a GGUF file holds metadata and tensors, not an object: read it with "
             "ember::serialize::GgufFile (Python: ember.utils.gguf.load)",
             name);
}

[[noreturn]] void unknown_format(std::string_view name) {
  EMBER_FAIL("load: '{}': not a file Ember reads (Not a zip archive; not torch.save's legacy format, safetensors "
             "or GGUF either)",
             name);
}

}  // namespace

IValue load(const std::string& path, Attributes* attrs) {
  std::shared_ptr<MappedFile> f = MappedFile::open(path);
  EMBER_CHECK(!f->bytes().empty(), "load: '{}': the file is empty (Not a zip archive)", path);
  switch (sniff_format(f->bytes().substr(0, 16))) {
    case FileFormat::Zip: {
      ZipReader zip = ZipReader::open_file(path);
      return load_zip(zip, attrs);
    }
    case FileFormat::TorchLegacy: {
      CheckpointOptions o;
      o.release_consumed_pages = true;  // f is this function's own private mapping
      return to_ivalue(read_torch_legacy(f->bytes(), path, o), attrs, path);
    }
    case FileFormat::Safetensors: return safetensors_dict(SafetensorsFile::open(path));
    case FileFormat::Gguf: gguf_file(path);
    default: unknown_format(path);
  }
}

IValue load_from_bytes(std::string_view data, Attributes* attrs, std::string_view name) {
  EMBER_CHECK(!data.empty(), "load: '{}': the file is empty (Not a zip archive)", name);
  switch (sniff_format(data.substr(0, 16))) {
    case FileFormat::Zip: {
      ZipReader zip = ZipReader::open_bytes(data, name);
      return load_zip(zip, attrs);
    }
    case FileFormat::TorchLegacy: return to_ivalue(read_torch_legacy(data, name), attrs, name);
    case FileFormat::Safetensors: return safetensors_dict(SafetensorsFile::from_bytes(data, name));
    case FileFormat::Gguf: gguf_file(name);
    default: unknown_format(name);
  }
}

}  // namespace ember::serialize
