# aspvqa service image. Stage 1 builds the virtual environment (llama.cpp is compiled there);
# stage 2 carries only that environment and WordNet, so no compiler ships in the image. llama.cpp is
# built for AVX2 (ASPVQA_LLAMA_CPU=avx2): an image runs on other machines than the one that built it.
# torch: set PIP_EXTRA_INDEX_URL (build arg) to a CPU-only index to keep the image small.
FROM python:3.11-slim-bookworm AS build
ARG PIP_EXTRA_INDEX_URL=""
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake git \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY scripts ./scripts
COPY theory ./theory
COPY translators ./translators
COPY scene ./scene
COPY trust ./trust
COPY evaluation ./evaluation
COPY app ./app
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir ".[service,llm,vision]" \
    && VENV=/opt/venv ASPVQA_LLAMA_CPU=avx2 sh scripts/install_llm.sh \
    && rm -rf /root/.cache

FROM python:3.11-slim-bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index libgomp1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home aspvqa
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    HF_HUB_OFFLINE=1
USER aspvqa
EXPOSE 8000
# Run under a restart policy (`docker run --restart unless-stopped`) with ASPVQA_API_KEY set: the
# port is open to whoever reaches it. Solver processes (ASPVQA_SOLVE_WORKERS) are replaced by the
# service itself when one dies; the health check and the restart policy cover the service process.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"
ENTRYPOINT ["aspvqa"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
