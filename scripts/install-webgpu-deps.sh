#!/usr/bin/env bash
# Installs the Debian/Ubuntu system libraries that let Dawn (npm `webgpu`) run WebGPU on Mesa's llvmpipe without a GPU; idempotent.
#
# Why each package (verified against webgpu@0.6.2 on Debian 12 / Mesa 22.3):
#   libegl1        - glvnd EGL dispatcher (libEGL.so.1).
#   libegl-dev     - provides the unversioned libEGL.so symlink: Dawn dlopen()s "libEGL.so",
#                    NOT "libEGL.so.1", so without it the OpenGLES backend finds no adapter.
#   libegl-mesa0   - Mesa's EGL vendor library (surfaceless platform).
#   libgles2       - GLESv2 dispatcher the GL ES context is created through.
#   libgl1-mesa-dri - the swrast/llvmpipe DRI driver (swrast_dri.so); libegl-mesa0 does not depend
#                    on it, and without it eglInitialize fails with EGL_NOT_INITIALIZED.
#
# Usage: scripts/install-webgpu-deps.sh        (as root, or with passwordless sudo)
#        DRY_RUN=1 scripts/install-webgpu-deps.sh   (only report what would be installed)
set -euo pipefail

PACKAGES=(libegl1 libegl-dev libegl-mesa0 libgles2 libgl1-mesa-dri)

log() { printf '[install-webgpu-deps] %s\n' "$*"; }

# Only Linux needs this: macOS uses Metal and Windows D3D12 through Dawn's default backend.
if [[ "$(uname -s)" != "Linux" ]]; then
  log "not Linux ($(uname -s)); Dawn uses the platform's native backend, nothing to install."
  exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  log "no dpkg/apt-get on this system; install the equivalents of: ${PACKAGES[*]}"
  log "(EGL loader + unversioned libEGL.so, Mesa EGL, GLES2, Mesa DRI swrast/llvmpipe driver) by hand."
  exit 0
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  # dpkg-query prints "install ok installed" only for fully installed packages; anything else counts as missing.
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" == "install ok installed" ]]; then
    log "already installed: $pkg"
  else
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  log "all packages present; skipping apt."
  exit 0
fi

log "missing: ${missing[*]}"
if [[ "${DRY_RUN:-}" == "1" ]]; then
  log "DRY_RUN=1, not installing."
  exit 0
fi

SUDO=()
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    log "error: need root (or passwordless sudo) to apt-get install: ${missing[*]}" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
log "running: ${SUDO[*]:-} apt-get update"
"${SUDO[@]}" apt-get update -q
log "running: ${SUDO[*]:-} apt-get install -y --no-install-recommends ${missing[*]}"
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"

# Re-check so CI fails here, with a clear message, instead of later inside a GPU test.
for pkg in "${missing[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    log "error: $pkg still not installed after apt-get" >&2
    exit 1
  fi
done
log "done; run Node with EGL_PLATFORM=surfaceless (runtime/src/dialects/webgpu/device.ts sets it when unset)."
