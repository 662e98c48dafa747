#!/usr/bin/env bash
# Unpacks Mesa 25's lavapipe (software Vulkan) from Debian bookworm-backports into .lavapipe/ without touching the
# system's Mesa, so Dawn's Vulkan backend has an adapter that offers shader-f16; idempotent.
#
# Why: the default test adapter (Dawn's OpenGL ES backend on llvmpipe) and Chromium's SwiftShader both lack the
# shader-f16 feature, and Dawn rejects bookworm's own lavapipe (Mesa 22.3 lacks shaderUniform*ArrayDynamicIndexing).
# Mesa 25's lavapipe is accepted, at WebGPU's core feature level, and offers shader-f16. It links against the
# libLLVM-15 that libgl1-mesa-dri already brings (scripts/install-webgpu-deps.sh) and the Vulkan loader (libvulkan1).
#
# Tests select it with test/support/lavapipe.ts (VK_ICD_FILENAMES=.lavapipe/icd.json, RAF_WEBGPU_BACKEND=vulkan).
# Usage: scripts/install-lavapipe.sh   (as root: it may add the backports source and install libvulkan1)
set -euo pipefail

cd "$(dirname "$0")/.."
DEST=.lavapipe
SUITE=bookworm-backports

log() { printf '[install-lavapipe] %s\n' "$*"; }

if [[ -f "$DEST/icd.json" && -f "$DEST/libvulkan_lvp.so" ]]; then
  log "already unpacked in $DEST"
  exit 0
fi
if [[ "$(uname -s)" != "Linux" ]] || ! command -v apt-get >/dev/null 2>&1; then
  log "needs Debian's apt; skipped (the shader-f16 tests then report that no such adapter exists)"
  exit 0
fi

SUDO=""
if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi

if ! dpkg-query -W -f='${Status}' libvulkan1 2>/dev/null | grep -q "install ok installed"; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libvulkan1
fi
if ! apt-cache madison mesa-vulkan-drivers | grep -q "$SUITE"; then
  log "adding the $SUITE source (packages from it are only installed when asked for by name)"
  echo "deb http://deb.debian.org/debian $SUITE main" | $SUDO tee "/etc/apt/sources.list.d/$SUITE.list" >/dev/null
  $SUDO apt-get update -qq
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"   # apt-get download runs as _apt where it can
(cd "$tmp" && apt-get download -qq "mesa-vulkan-drivers/$SUITE")
dpkg-deb -x "$tmp"/mesa-vulkan-drivers_*.deb "$tmp/root"
lib="$(find "$tmp/root" -name libvulkan_lvp.so | head -n1)"
if [[ -z "$lib" ]]; then
  log "the package has no libvulkan_lvp.so"
  exit 1
fi
mkdir -p "$DEST"
cp "$lib" "$DEST/libvulkan_lvp.so"
version="$(dpkg-deb -f "$tmp"/mesa-vulkan-drivers_*.deb Version)"
cat >"$DEST/icd.json" <<JSON
{
  "file_format_version": "1.0.0",
  "ICD": { "library_path": "$(pwd)/$DEST/libvulkan_lvp.so", "api_version": "1.3.0" }
}
JSON
echo "$version" >"$DEST/VERSION"
log "lavapipe $version unpacked in $DEST"
