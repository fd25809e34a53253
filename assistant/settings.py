"""Settings: every knob a user can set, typed, in one place.

Precedence, lowest first: the defaults below (retrieval defaults are `index.search.DEFAULT_FUSION`'s, so
they live in one place), a named preset (`preset`, `--preset NAME`, `$CITEWISE_PRESET`: a JSON file in
`assistant/presets/`), `CITEWISE_*` environment variables (nested sections with a double underscore:
`CITEWISE_RETRIEVAL__DENSE_WEIGHT=0.4`, or a whole section as JSON: `CITEWISE_RETRIEVAL='{"k": 6}'`),
then arguments (`Settings(index=...)`, CLI options). Unknown keys are errors everywhere (`extra="forbid"`).

`load_settings` turns every way a setting can be wrong (a malformed variable, an unknown preset, an
embedding model that is neither known nor a local path) into one `SettingsError` line that names the
value and what to do. Left out: config files other than presets, and per-question overrides.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_type_hints

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings import SettingsError as PydanticSettingsError

from index.embed import DEFAULT_MODEL
from index.fuse import NORMS
from index.search import DEFAULT_FUSION, Fusion
from index.vector_store import VectorConfig
from ingest import CitewiseError
from ingest.chunk import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE

from .people import PERSON_K

ENV_PREFIX = "CITEWISE_"
PRESETS_DIR = Path(__file__).resolve().parent / "presets"
HELP = "`citewise settings` lists every setting"


class SettingsError(CitewiseError):
    """A setting, preset or model name that cannot be used; the message names it and what to do."""


class PresetNotFound(SettingsError):
    pass


class ModelNotFound(SettingsError):
    pass


def user_index_dir() -> Path:
    """Where the index lives when neither --index nor CITEWISE_INDEX says."""
    return platformdirs.user_data_path("citewise") / "index"


# -- models ------------------------------------------------------------------------------------

def _hf_cached(name: str) -> bool:
    """Is the Hugging Face model `name` (or sentence-transformers/`name`) in the local cache? Never downloads."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - sentence-transformers depends on it
        return False
    repos = [name] if "/" in name else [name, f"sentence-transformers/{name}"]
    for repo in repos:
        try:
            if isinstance(try_to_load_from_cache(repo, "config.json"), str):
                return True
        except ValueError:  # not a valid repo id
            continue
    return False


def check_model(name: str | None) -> str | None:
    """`name` if it is the packaged model, an existing local path or a model in the Hugging Face cache;
    otherwise `ModelNotFound` (at once: nothing is loaded or downloaded)."""
    if name is None or name == DEFAULT_MODEL:
        return name
    local = Path(os.path.expanduser(name))
    if local.exists():
        if not any((local / f).is_file() for f in ("modules.json", "config.json")):
            raise ModelNotFound(f"embedding model path {name!r} is not a model directory (no modules.json or "
                                "config.json in it); give the folder of a sentence-transformers model")
        return name
    if _hf_cached(name):
        return name
    raise ModelNotFound(
        f"unknown embedding model {name!r}: not the packaged {DEFAULT_MODEL!r}, not a local path and not in the "
        f"Hugging Face cache (nothing is downloaded); give a local model directory, or drop --model/$CITEWISE_MODEL"
    )


# -- presets -----------------------------------------------------------------------------------

def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


def preset_description(name: str) -> str:
    return str(load_preset_file(name).get("description", ""))


def load_preset_file(name: str) -> dict[str, Any]:
    """The preset file `name` as {"description": ..., "settings": {...}}."""
    path = PRESETS_DIR / f"{name}.json"
    if not name or "/" in name or "\\" in name or not path.is_file():
        raise PresetNotFound(f"unknown preset {name!r}; choose one of: {', '.join(preset_names())}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SettingsError(f"preset {name!r} ({path}) is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("settings", {}), dict) or set(data) - {"description",
                                                                                                    "settings"}:
        raise SettingsError(f'preset {name!r} ({path}) must be {{"description": "...", "settings": {{...}}}}')
    return data


def load_preset(name: str) -> dict[str, Any]:
    """The settings preset `name` sets, checked against the settings sections (unknown keys are errors)."""
    values = load_preset_file(name).get("settings", {})
    for key, value in values.items():
        if key not in Settings.model_fields or key in ("preset", "index", "milvus_token"):
            raise SettingsError(f"preset {name!r} sets unknown setting {key!r}; {HELP}")
        section = SECTIONS.get(key)
        if section is not None:
            try:
                section.model_validate(value)
            except ValidationError as exc:
                raise SettingsError(f"preset {name!r}: {explain(exc, prefix=key)}") from exc
    return dict(values)


class PresetSource(PydanticBaseSettingsSource):
    """The values of the preset named by the `preset` argument, else by $CITEWISE_PRESET."""

    def __init__(self, settings_cls: type[BaseSettings], init_kwargs: dict[str, Any]) -> None:
        super().__init__(settings_cls)
        self.init_kwargs = init_kwargs

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:  # pragma: no cover
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        name = self.init_kwargs.get("preset") or _env("PRESET")
        return load_preset(name) if name else {}


def _env(name: str) -> str | None:
    wanted = ENV_PREFIX + name.upper()
    return next((v for k, v in os.environ.items() if k.upper() == wanted), None)


# -- sections ----------------------------------------------------------------------------------

FUSION_FIELDS = tuple(f.name for f in fields(Fusion))


class _Retrieval(BaseModel):
    """How a question is searched: `k` and the fusion of dense and lexical ranking (`index.search.Fusion`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=10, ge=1, le=200, description="chunks retrieved per question")
    method: Literal["convex", "rrf"] = Field(default=DEFAULT_FUSION.method,  # type: ignore[arg-type]
                                             description="fusion: convex (normalised scores) or rrf (ranks)")
    norm: str = Field(default=DEFAULT_FUSION.norm, description=f"convex: score normalisation ({', '.join(NORMS)})")
    dense_weight: float = Field(default=DEFAULT_FUSION.dense_weight, ge=0.0, le=1.0,
                                description="convex: weight of the dense list; lexical gets 1 - this")
    rrf_k: float = Field(default=DEFAULT_FUSION.rrf_k, gt=0.0, description="rrf: the k of 1 / (k + rank)")
    depth: int = Field(default=DEFAULT_FUSION.depth, ge=1, le=10000,
                       description="candidates taken from each list (at least 2k)")
    context_weight: float = Field(default=DEFAULT_FUSION.context_weight, ge=0.0,
                                  description="BM25 weight of the context column (title, owner, section)")
    doc_weight: float = Field(default=DEFAULT_FUSION.doc_weight, ge=0.0,
                              description="lexical: share of the chunk's whole-document BM25 added to its own")
    feedback: int = Field(default=DEFAULT_FUSION.feedback, ge=0, le=100,
                          description="pseudo-relevance feedback: top fused chunks the query moves towards (0: off)")
    feedback_weight: float = Field(default=DEFAULT_FUSION.feedback_weight, ge=0.0,
                                   description="... by this much of their mean vector")
    scope_owners: bool = Field(default=DEFAULT_FUSION.scope_owners,
                               description="a query naming a document owner searches their documents first")
    reranker: str | None = Field(default=None, description="re-ranks the fused candidates: 'reading' (citewise's "
                                 "reading model) or the folder of a local sentence-transformers cross-encoder "
                                 "(off by default)")
    rerank_depth: int = Field(default=30, ge=1, le=1000, description="candidates the reranker re-scores")

    @field_validator("reranker")
    @classmethod
    def _local_reranker(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if value == "reading":
            return value
        path = Path(value).expanduser()
        if not path.is_dir():
            raise ValueError(f"no folder at {str(path)!r}: give 'reading' or the folder of a local cross-encoder "
                             "(nothing is downloaded)")
        return str(path)

    @field_validator("norm")
    @classmethod
    def _known_norm(cls, value: str) -> str:
        if value not in NORMS:
            raise ValueError(f"choose one of: {', '.join(NORMS)}")
        return value

    def fusion(self) -> Fusion:
        """The `Fusion` these settings describe (for `index.Searcher`)."""
        return Fusion(**{name: getattr(self, name) for name in FUSION_FIELDS})


def _with_every_fusion_field(base: type[_Retrieval]) -> type[_Retrieval]:
    """`base` plus any `Fusion` field it does not declare (typed and defaulted from `DEFAULT_FUSION`), so a
    knob added to `index.search.Fusion` is a setting at once; declaring it above adds bounds and a description."""
    hints = get_type_hints(Fusion)
    missing = {f.name: (hints[f.name], Field(default=getattr(DEFAULT_FUSION, f.name),
                                             description=f"see index.search.Fusion.{f.name}"))
               for f in fields(Fusion) if f.name not in base.model_fields}
    if not missing:
        return base
    return create_model("RetrievalSettings", __base__=base, __doc__=base.__doc__, **missing)  # type: ignore[call-overload,no-any-return]


if TYPE_CHECKING:
    RetrievalSettings = _Retrieval
else:
    RetrievalSettings = _with_every_fusion_field(_Retrieval)


class AnswerSettings(BaseModel):
    """How questions are read: how much each kind of question searches, and which reader parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_person: int = Field(default=6, ge=1, le=100,
                            description="'who' questions: chunks searched in each person's documents")
    who_chunks: int = Field(default=2, ge=1, le=20,
                            description="'who' questions: best chunks per document the reader reads")
    person_k: int = Field(default=PERSON_K, ge=1, le=500,  # see assistant.people.PERSON_K
                          description="a question naming a person: chunks searched in their documents")
    reader: str | None = Field(default=None, description="reader parameters (JSON from `citewise train-reader "
                               "--out`) for every question; default: the packaged assistant/answer/reader.json, and "
                               "reader-reading.json for the questions the reading model reads")
    reading_model: str = Field(default="packaged", description="a model that reads the best candidates against "
                               "the question: 'packaged' (default: citewise's own, trained by `python -m "
                               "training.train`), 'none', or a local folder (one written by that command, or a "
                               "sentence-transformers cross-encoder)")
    read_for: str = Field(default="unowned", description="the questions the reading model reads: 'unowned' "
                          "(default: fact questions about documents that belong to no person, such as papers, "
                          "reports, manuals and web pages, and a person's that the ranker alone refuses, answered "
                          "when the reading model is at least 50 % sure; it reads CV lines and 'who' questions "
                          "worse than the ranker alone) or 'all' (the preset 'reading')")
    read_top: int = Field(default=6, ge=0, le=100, description="candidates the reading model reads per question "
                          "(each costs about 20 ms on two cores; 'who' questions also read each person's best)")

    @field_validator("read_for")
    @classmethod
    def _read_for(cls, value: str) -> str:
        if value in ("unowned", "all"):
            return value
        raise ValueError(f"read_for must be 'unowned' or 'all', not {value!r}")

    @field_validator("reading_model")
    @classmethod
    def _reading_model(cls, value: str) -> str:
        if value in ("packaged", "none", "off") or Path(value).expanduser().is_dir():
            return value
        raise ValueError(f"no reading model at {value!r}: give 'packaged', 'none' or a local folder")


SECTIONS: dict[str, type[BaseModel]] = {"retrieval": RetrievalSettings, "answer": AnswerSettings}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid")

    preset: str | None = Field(default=None, description=f"named preset ({', '.join(preset_names())})")
    index: Path | None = Field(default=None, description="index directory (default: the user data dir)")
    model: str | None = Field(default=None, description="embedding model name or local path")
    chunk_size: int = Field(default=DEFAULT_CHUNK_SIZE, ge=100, le=8000, description="characters per chunk")
    chunk_overlap: int = Field(default=DEFAULT_CHUNK_OVERLAP, ge=0, le=2000, description="characters shared by neighbours")
    workers: int = Field(default=1, ge=0, le=256,
                         description="indexing processes that parse and embed (0: one per core)")
    store: str = Field(default="faiss", pattern="^(faiss|milvus)$",
                       description="vector store of a new index: faiss (embedded) or milvus")
    milvus_uri: str | None = Field(default=None, description="milvus: a local file (milvus-lite) or http://host:19530")
    milvus_collection: str | None = Field(default=None, description="milvus: collection name (default: from the index dir)")
    milvus_db: str | None = Field(default=None, description="milvus: database name (server only)")
    milvus_token: SecretStr | None = Field(default=None, description="milvus: token or user:password (never stored)")
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)

    @model_validator(mode="before")
    @classmethod
    def _k_shorthand(cls, data: Any) -> Any:
        """`Settings(k=5)` is `Settings(retrieval={"k": 5})`."""
        if isinstance(data, dict) and "k" in data:
            data = dict(data)
            retrieval = data.get("retrieval") or {}
            retrieval = retrieval.model_dump() if isinstance(retrieval, BaseModel) else dict(retrieval)
            data["retrieval"] = {**retrieval, "k": data.pop("k")}
        return data

    @field_validator("model")
    @classmethod
    def _known_model(cls, value: str | None) -> str | None:
        return check_model(value)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        init_kwargs = getattr(init_settings, "init_kwargs", {})
        return init_settings, env_settings, PresetSource(settings_cls, init_kwargs)

    @property
    def k(self) -> int:
        """Chunks retrieved per question (`retrieval.k`)."""
        return self.retrieval.k

    def fusion(self) -> Fusion:
        return self.retrieval.fusion()

    def index_dir(self) -> Path:
        return (self.index or user_index_dir()).expanduser()

    def vector_config(self) -> VectorConfig:
        """The vector store a new index gets (an existing index keeps the one it was built with)."""
        milvus_given = bool(self.milvus_uri or self.milvus_collection or self.milvus_db)
        store = "milvus" if milvus_given and "store" not in self.model_fields_set else self.store
        return VectorConfig(store, self.milvus_uri, self.milvus_collection, self.milvus_db)

    def vector_config_given(self) -> VectorConfig | None:
        """`vector_config()` when the user chose a vector store; None leaves an existing index as it is."""
        chosen = {"store", "milvus_uri", "milvus_collection", "milvus_db"} & self.model_fields_set
        return self.vector_config() if chosen else None

    def token(self) -> str | None:
        return self.milvus_token.get_secret_value() if self.milvus_token else None

    def describe(self) -> dict[str, Any]:
        """Every setting and its value (the token masked): what `citewise settings --json` prints."""
        out = self.model_dump(mode="json")
        if out.get("milvus_token"):
            out["milvus_token"] = "********"
        return out

    def knobs(self) -> list[tuple[str, Any, Any, str]]:
        """(dotted name, value, default, description) of every setting, sections flattened."""
        rows: list[tuple[str, Any, Any, str]] = []
        values = self.describe()
        for name, info in type(self).model_fields.items():
            section = SECTIONS.get(name)
            if section is None:
                rows.append((name, values[name], _default(info), info.description or ""))
                continue
            for sub, sub_info in section.model_fields.items():
                rows.append((f"{name}.{sub}", values[name][sub], _default(sub_info), sub_info.description or ""))
        return rows


def _default(info: FieldInfo) -> Any:
    value = info.get_default(call_default_factory=True)
    return str(value) if isinstance(value, Path) else value


def env_name(loc: tuple[Any, ...]) -> str:
    """The environment variable of a setting: ("retrieval", "dense_weight") -> CITEWISE_RETRIEVAL__DENSE_WEIGHT."""
    return ENV_PREFIX + "__".join(str(part).upper() for part in loc)


def explain(exc: ValidationError | PydanticSettingsError, prefix: str | None = None) -> str:
    """One line for a settings validation error: the setting, the bad value, where it came from, the fix."""
    if isinstance(exc, PydanticSettingsError):  # a variable pydantic-settings could not even parse (bad JSON)
        field = re.search(r'field "(\w+)"', str(exc))
        var = env_name((field.group(1),)) if field else "a CITEWISE_* variable"
        value = _env(var.removeprefix(ENV_PREFIX)) if field else None
        shown = f": {value!r}" if value is not None else ""
        return f"bad value for ${var}{shown}: not valid JSON for a settings section; fix or unset it ({HELP})"
    errors = exc.errors()
    first = errors[0]
    loc = tuple(x for x in ((prefix,) if prefix else ()) + tuple(first["loc"]) if x is not None)
    dotted = ".".join(str(x) for x in loc)
    value = first.get("input")
    reason = first["msg"].removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    if first["type"] == "extra_forbidden":
        var = env_name(loc)
        where = f" (from ${var})" if _env(var.removeprefix(ENV_PREFIX)) is not None else ""
        return f"unknown setting {dotted!r}{where}{more}; {HELP}"
    var = env_name(loc)
    if prefix is None and _env(var.removeprefix(ENV_PREFIX)) is not None:
        return f"bad value for ${var}: {value!r}: {reason}{more}; fix or unset it ({HELP})"
    return f"bad value for setting {dotted}: {value!r}: {reason}{more} ({HELP})"


def env_names() -> list[str]:
    """Every CITEWISE_* variable a setting reads (sections both whole and per key)."""
    names = []
    for name in Settings.model_fields:
        names.append(env_name((name,)))
        section = SECTIONS.get(name)
        if section is not None:
            names += [env_name((name, sub)) for sub in section.model_fields]
    return names


def near_misses(environ: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(variable, the setting's variable it was probably meant as) for CITEWISE_* variables that no
    setting reads but that look like one: `CITEWISE_K` -> `CITEWISE_RETRIEVAL__K`. Variables read by
    other parts (`CITEWISE_AUTH`, `CITEWISE_LLM`, test switches) look like no setting and are left alone."""
    import difflib

    known = env_names()
    tails = {n.rsplit("__", 1)[1]: n for n in known if "__" in n}
    out = []
    for var in sorted(environ if environ is not None else os.environ):
        upper = var.upper()
        if not upper.startswith(ENV_PREFIX) or upper in known or "__" in upper:  # "__": pydantic reports it
            continue
        tail = upper.removeprefix(ENV_PREFIX)
        guess = tails.get(tail) or next(iter(difflib.get_close_matches(upper, known, n=1, cutoff=0.85)), None)
        if guess:
            out.append((var, guess))
    return out


def load_settings(**kwargs: Any) -> Settings:
    """`Settings(**kwargs)` with every error as one `SettingsError` line (see `explain`)."""
    try:
        return Settings(**kwargs)
    except (ValidationError, PydanticSettingsError) as exc:
        raise SettingsError(explain(exc)) from exc
