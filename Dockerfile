# aspvqa service image: the package, its pinned dependencies and WordNet 3.0 from Debian.
FROM python:3.11-slim-bookworm

RUN apt-get update \
    && apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index make \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/aspvqa
COPY pyproject.toml README.md ./
COPY theory ./theory
COPY translators ./translators
COPY scene ./scene
COPY evaluation ./evaluation
COPY app ./app
RUN pip install --no-cache-dir ".[service]"

RUN useradd --create-home aspvqa
USER aspvqa
EXPOSE 8000
ENTRYPOINT ["aspvqa"]
CMD ["demo"]
