"""One anonymization job: what to read, how to protect it, where to write it.

:class:`AnonymizationJob` is a frozen value holding everything one release needs: the input
(a file path, a bundled dataset, a DataFrame or a :class:`~ktype.Dataset`), the column roles
and hierarchies, how to read the file (:class:`Reading`: separator, encoding, declared types
and date formats, NA strings, missing-value policy), the privacy requirement (``k``, ``l``,
``p``, ``t``, ``model``, ...), the algorithm and its typed options, ``rng`` and the outputs.

It is built three ways, all validated by the same code here, once:

* Python keywords: ``AnonymizationJob(input="people.csv", quasi_identifiers=["age"], k=5)``
  (``ktype.anonymize(...)`` builds one from its own keywords, or takes one);
* a YAML/TOML config or a mapping: :meth:`AnonymizationJob.from_config` (keys are the
  command-line names, :data:`CONFIG_KEYS`; an unknown key or a value of the wrong type is an
  error naming the key);
* the command line: ``ktype anonymize`` gathers its flags into the same mapping (flags win
  over the config file) and calls :meth:`AnonymizationJob.from_config`.

:meth:`AnonymizationJob.to_config` gives back the mapping (or writes the YAML file) that
rebuilds the same job. ``rng=None`` (secret OS entropy) is never written anywhere.
:func:`run_job` loads the input, builds the models, runs the algorithm (its independent
checker verifies the release), writes the outputs and returns a :class:`JobResult`; the
command line prints that result's summary. See ``docs/design/job.md``.
"""

from __future__ import annotations

import dataclasses
import numbers
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._config import OPTION_KINDS, REST, _parse_missing, parse_hierarchies, parse_options, read_config, split_list
from ._validation import RNGLike
from .exceptions import InvalidParameterError, KtypeError

__all__ = ["AnonymizationJob", "Reading", "JobResult", "run_job", "CONFIG_KEYS", "READING_KEYS", "ROLE_KEYS",
           "read_config", "load_input", "parse_hierarchies", "parse_options", "split_list", "REST"]

#: config keys of the reading options every command that reads a table takes
READING_KEYS = ("sep", "encoding", "type", "na_values", "missing")
#: config keys of the column roles
ROLE_KEYS = ("qi", "sensitive", "identifier", "insensitive", "hierarchy")

#: config key -> AnonymizationJob field, for the keys a job holds
_JOB_FIELDS: dict[str, str] = {
    "input": "input", "dataset": "dataset", "rows": "rows",
    "qi": "quasi_identifiers", "sensitive": "sensitive", "identifier": "identifiers", "insensitive": "insensitive",
    "hierarchy": "hierarchies",
    "sep": "sep", "encoding": "encoding", "type": "types", "na_values": "na_values", "missing": "missing",
    "model": "model", "protect": "protect", "k": "k", "l": "l", "diversity": "diversity", "c": "c", "p": "p", "t": "t",
    "distance": "distance",
    "algorithm": "algorithm", "option": "options", "rng": "rng",
    "output": "output", "summary": "summary", "format": "format", "csv_escape": "csv_escape", "force": "force",
    "mkdirs": "mkdirs",
}
#: the config keys of an anonymization job (and of ``ktype anonymize``) with their kinds
CONFIG_KEYS: dict[str, str] = {key: OPTION_KINDS[key] for key in _JOB_FIELDS}

# ---------------------------------------------------------------------- reading
@dataclass(frozen=True)
class Reading:
    """How to read a table file, the same for every command.

    ``sep``: CSV separator (one character; sniffed when ``None``). ``encoding``: text
    encoding of a CSV file (default UTF-8; e.g. ``latin-1``). ``types``: declared column
    types ``{"zip": "text", "admission": "date:%m/%d/%Y"}`` (a date type may name its
    ``strftime`` format). ``na_values``: strings that mean missing (default: only empty
    cells). ``missing``: the missing-value policy (``error``, ``category``, ``suppress``) for
    every column or per column.
    """

    sep: str | None = None
    encoding: str | None = None
    types: Mapping[str, str] = field(default_factory=dict)
    na_values: tuple[str, ...] = ()
    missing: str | Mapping[str, str] | None = None

    @classmethod
    def from_options(cls, opts: Mapping[str, Any]) -> Reading:
        """From config keys ``sep``, ``encoding``, ``type``, ``na_values``, ``missing``."""
        from .data.types import normalize_types

        sep = opts.get("sep")
        if sep is not None:
            from .io._files import normalize_sep

            sep = normalize_sep(sep)
        return cls(sep=sep, encoding=opts.get("encoding") or None, types=normalize_types(opts.get("type")),
                   na_values=split_list(opts.get("na_values")), missing=_parse_missing(opts.get("missing")))


def _with_rest(columns: Sequence[str], qi: Sequence[str], sensitive: Sequence[str], identifiers: Sequence[str],
               insensitive: Sequence[str]) -> list[str]:
    """Resolve ``insensitive = ["*"]``: every column without another role."""
    ins = list(insensitive)
    if REST not in ins:
        return ins
    if ins != [REST]:
        raise InvalidParameterError(f"insensitive: {REST!r} means every other column; do not list columns beside it.")
    taken = set(qi) | set(sensitive) | set(identifiers)
    return [c for c in columns if c not in taken]


def load_input(
    source: Any = None,
    *,
    dataset: str | None = None,
    quasi_identifiers: Sequence[str] = (),
    sensitive: Sequence[str] = (),
    identifiers: Sequence[str] = (),
    insensitive: Sequence[str] = (),
    hierarchies: Mapping[str, Any] | None = None,
    reading: Reading | None = None,
    rows: int | None = None,
) -> Any:
    """A :class:`~ktype.Dataset` from a file path, a DataFrame, a Dataset or a bundled dataset
    name, read the same way by every command (``reading``); ``insensitive=["*"]`` releases
    every column without another role unchanged. ``rows``: only the first ``rows`` records
    (of a file or DataFrame as read, or of the bundled dataset)."""
    import pandas as pd

    from .data.dataset import Dataset
    from .exceptions import DataError, UnassignedColumnsError

    rd = reading or Reading()
    hier = dict(hierarchies or {})
    rows = _rows(rows)
    if isinstance(source, Dataset):  # used whole, with its own roles: anything given beside it would be ignored
        if given := [n for n, v in (("quasi_identifiers", quasi_identifiers), ("sensitive", sensitive), ("identifiers",
                     identifiers), ("insensitive", insensitive), ("hierarchies", hier), ("rows", rows)) if v]:
            raise InvalidParameterError(f"A Dataset is used whole, with its own column roles and hierarchies; got "
                                        f"{', '.join(given)} too, which would be ignored. Build the Dataset with them (its "
                                        f"quasi-identifiers: {list(source.quasi_identifiers)}; rows: ds.subset(range(n))), "
                                        "or pass the DataFrame instead.")
        return source
    if dataset:
        from .data.bundled import load_adult

        if dataset != "adult":
            raise KtypeError(f"Unknown bundled dataset {dataset!r}; `ktype datasets` lists them.")
        if identifiers:
            raise KtypeError("The bundled Adult data has no identifier columns; drop --identifier.")
        if list(insensitive) == [REST]:
            raise KtypeError("The bundled Adult data has no columns besides its QIs and sensitive attribute; drop "
                             "--insensitive '*'.")
        return load_adult(quasi_identifiers=list(quasi_identifiers) or None,
                          sensitive=list(sensitive) if sensitive else ("salary-class",), insensitive=list(insensitive),
                          n=rows, hierarchies=hier)
    if source is None:
        raise KtypeError("Give an input file (CSV or Parquet) or --dataset adult.")
    if not quasi_identifiers:
        raise InvalidParameterError("Name the quasi-identifiers: --qi col1,col2,... (Python: quasi_identifiers=[...]; "
                                    "config: qi: [...]).")
    name = None
    if isinstance(source, pd.DataFrame):
        frame = source
        if rd.types:
            from .data.types import apply_types

            frame = apply_types(frame, rd.types)
    elif isinstance(source, (str, Path)):
        from .data.dataset import read_table

        frame = read_table(source, sep=rd.sep, types=rd.types, na_values=rd.na_values, encoding=rd.encoding)
        name = Path(source).stem
    else:
        raise DataError(f"Expected a file path, a pandas DataFrame or a ktype Dataset; got {type(source).__name__}.")
    if rows is not None:
        frame = frame.iloc[:rows].reset_index(drop=True)
    ins = _with_rest([str(c) for c in frame.columns], quasi_identifiers, sensitive, identifiers, insensitive)
    try:
        return Dataset(frame, quasi_identifiers=list(quasi_identifiers), sensitive=list(sensitive),
                       identifiers=list(identifiers), insensitive=ins, hierarchies=hier, missing=rd.missing,
                       name=name)
    except UnassignedColumnsError as e:
        from .risk.hipaa import with_identifier_hints

        raise with_identifier_hints(e) from None


def _rows(rows: Any) -> int | None:
    """``rows`` checked: None or a positive whole number (numpy integers too, never a boolean)."""
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, numbers.Integral) or rows < 1):
        raise InvalidParameterError(f"rows (--rows) must be a positive whole number of records; got {rows!r}.")
    return None if rows is None else int(rows)


# ---------------------------------------------------------------------- the job
def _tuple(name: str, value: Any) -> tuple[str, ...]:
    """Column names from Python: one name or a sequence of names, kept verbatim (a column
    may hold a comma); the command line and configs split ``a,b`` before (:func:`split_list`)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bool, Mapping)) or not isinstance(value, (list, tuple)):
        raise InvalidParameterError(f"{name} takes column names (a list of text); got {value!r}.")
    return tuple(str(v) for v in value)


@dataclass(frozen=True)
class AnonymizationJob:
    """Everything one anonymization needs, validated once (see the module docstring).

    Field names are the Python keywords of :func:`ktype.anonymize`; the config keys and
    command-line flags are :data:`CONFIG_KEYS` (``qi`` = ``quasi_identifiers``, ``type`` =
    ``types``, ``option`` = ``options``, ...). ``insensitive=["*"]`` releases every column
    without another role unchanged. ``model`` is a list of model names (the command line's
    ``--model``) or of :class:`~ktype.models.PrivacyModel` objects; with one k-type model
    name it only says which model ``k`` means. ``rows``: only the first ``rows`` records of
    the input (e.g. a sample of Adult, as the web app offers). ``protect``: with several
    sensitive columns, the one ℓ-diversity, p-sensitivity and t-closeness protect.
    """

    input: Any = None
    dataset: str | None = None
    rows: int | None = None
    quasi_identifiers: Sequence[str] = ()
    sensitive: Sequence[str] | str = ()
    identifiers: Sequence[str] = ()
    insensitive: Sequence[str] = ()
    hierarchies: Mapping[str, Any] | None = field(default_factory=dict)
    sep: str | None = None
    encoding: str | None = None
    types: Mapping[str, str] | Sequence[str] | str | None = field(default_factory=dict)
    na_values: Sequence[str] = ()
    missing: str | Mapping[str, str] | None = None
    model: Sequence[Any] | Any = ()
    protect: str | None = None
    k: int | None = None
    l: float | None = None  # noqa: E741
    diversity: str | None = None
    c: float | None = None
    p: int | None = None
    t: float | None = None
    distance: str | None = None
    algorithm: str = "mondrian"
    options: Mapping[str, Any] | Sequence[str] | None = field(default_factory=dict)
    rng: RNGLike = None
    output: str | Path | None = None
    summary: str | Path | None = None
    format: str | None = None
    csv_escape: bool = True
    force: bool = False
    mkdirs: bool = False

    def __post_init__(self) -> None:
        from .data.types import normalize_types

        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        for name in ("quasi_identifiers", "sensitive", "identifiers", "insensitive", "na_values"):
            put(name, _tuple(name, getattr(self, name)))
        put("hierarchies", parse_hierarchies(self.hierarchies))
        put("types", normalize_types(self.types))
        put("missing", _parse_missing(self.missing))
        put("options", parse_options(self.options))
        m = self.model
        if m is None:
            m = ()
        elif isinstance(m, str):
            m = split_list(m)
        elif not isinstance(m, (list, tuple)):
            m = (m,)
        put("model", tuple(m))
        if self.sep is not None:
            from .io._files import normalize_sep

            put("sep", normalize_sep(self.sep))
        if self.algorithm is None:
            put("algorithm", "mondrian")
        if not isinstance(self.algorithm, str):
            raise InvalidParameterError(f"algorithm must be a name (e.g. 'mondrian'); got {self.algorithm!r}.")
        for name in ("csv_escape", "force", "mkdirs"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidParameterError(f"{name} must be True or False; got {getattr(self, name)!r}.")
        for name in ("input", "output", "summary"):
            v = getattr(self, name)
            if isinstance(v, str):
                put(name, Path(v))  # one spelling of a path: equal jobs compare equal
            elif name != "input" and v is not None and not isinstance(v, Path):
                raise InvalidParameterError(f"{name} must be a file path; got {v!r}.")
        if self.format is not None and self.output is None:
            raise InvalidParameterError("format (--format) needs an output file (--output).")
        if self.input is not None and self.dataset:
            raise InvalidParameterError("Give an input table or a bundled dataset (--dataset), not both.")
        put("rows", _rows(self.rows))
        if self.protect is not None and not isinstance(self.protect, str):
            raise InvalidParameterError(f"protect (--protect) names one sensitive column; got {self.protect!r}.")

    # ------------------------------------------------------------------ building
    @classmethod
    def from_config(cls, source: str | Path | Mapping[str, Any], *, overrides: Mapping[str, Any] | None = None
                    ) -> AnonymizationJob:
        """A job from a YAML/TOML config file or a mapping whose keys are :data:`CONFIG_KEYS`.

        ``overrides`` (config keys, e.g. the command line's flags) win over the file; a value
        of ``None`` or an empty list is not an override.
        """
        cfg = read_config(source, CONFIG_KEYS) if source is not None else {}
        for key, value in (overrides or {}).items():
            if key not in CONFIG_KEYS:
                raise InvalidParameterError(f"Unknown job option {key!r}.")
            if value is not None and value != [] and value != ():
                cfg[key] = value
        return cls._from_keys(cfg)

    @classmethod
    def _from_keys(cls, cfg: Mapping[str, Any]) -> AnonymizationJob:
        kw: dict[str, Any] = {}
        for key, value in cfg.items():
            if value is None:
                continue
            if OPTION_KINDS[key] == "list":
                value = split_list(value)
            kw[_JOB_FIELDS[key]] = value
        return cls(**kw)

    def replace(self, **changes: Any) -> AnonymizationJob:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def to_config(self, path: str | Path | None = None) -> dict[str, Any]:
        """The config mapping that rebuilds this job (only what differs from the defaults);
        with ``path`` (``.yaml``/``.yml``) also written there, with absolute paths.

        An in-memory input, model objects and a numpy Generator as ``rng`` cannot be written
        (an error says what to give instead). ``rng=None`` is left out: secret OS entropy is
        never recorded."""
        import numpy as np

        defaults = AnonymizationJob()
        out: dict[str, Any] = {}
        if self.input is not None and not isinstance(self.input, (str, Path)):
            raise InvalidParameterError("This job's input is an in-memory table, which a config cannot hold; "
                                        "save it (CSV or Parquet) and give its path as input.")
        if any(not isinstance(m, str) for m in self.model):
            raise InvalidParameterError("This job's models are objects; a config names models: give model names "
                                        "(e.g. model=['k-anonymity']) with k/l/p/t, or k=... alone.")
        if self.rng is not None and not (isinstance(self.rng, (int, np.integer)) and not isinstance(self.rng, bool)):
            raise InvalidParameterError("rng is a numpy Generator, which a config cannot hold; give an int seed "
                                        "(or None for secret OS entropy).")
        for key, name in _JOB_FIELDS.items():
            value = getattr(self, name)
            if value == getattr(defaults, name) and key != "algorithm":
                continue
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = {str(k): (list(v) if isinstance(v, tuple) else v) for k, v in value.items()}
            elif isinstance(value, Path) or (key in ("input", "output", "summary") and value is not None):
                value = str(Path(value).absolute()) if path is not None else str(value)
            elif isinstance(value, np.integer):
                value = int(value)
            out[key] = value
        if path is not None:
            import yaml

            p = Path(path)
            if p.suffix.lower() not in (".yaml", ".yml"):
                raise InvalidParameterError(f"to_config writes YAML: name the file .yaml or .yml; got {p.name!r}.")
            from .io._files import atomic_write_text

            atomic_write_text(p, yaml.safe_dump(out, sort_keys=False, allow_unicode=True))
        return out

    # ------------------------------------------------------------------ resolving
    @property
    def reading(self) -> Reading:
        """How the input file is read (the fields sep, encoding, types, na_values, missing)."""
        return Reading(sep=self.sep, encoding=self.encoding, types=dict(self.types or {}),  # type: ignore[arg-type]
                       na_values=tuple(self.na_values), missing=self.missing)

    def algorithm_info(self) -> Any:
        from .algorithms import get_algorithm

        return get_algorithm(self.algorithm)

    def check_options(self, info: Any) -> dict[str, Any]:
        """The algorithm options, checked against the algorithm's own (name and type of its
        default): ``-o randomized=yes`` for a boolean option is an error, not ``True``."""
        from ._validation import unknown_name

        known = info.options
        out = {}
        for name, value in dict(self.options or {}).items():  # type: ignore[arg-type]
            if name not in known:
                raise unknown_name(f"option of {info.name}", name, list(info.constraints) or list(known))
            default = known[name]
            if isinstance(default, bool) and not isinstance(value, bool):
                raise InvalidParameterError(f"Option {name} of {info.name} is true or false; got {value!r}.")
            if isinstance(default, (int, float)) and not isinstance(default, bool) and (
                    isinstance(value, bool) or not isinstance(value, (int, float))):
                import numpy as np

                if not isinstance(value, np.number):
                    raise InvalidParameterError(f"Option {name} of {info.name} is a number; got {value!r}.")
            out[name] = value
        return out

    def models(self, info: Any | None = None) -> list[Any]:
        """The privacy models this job asks for (the algorithm's own k-type model and ℓ-diversity
        variant by default). No requirement at all is an error: ktype never picks one."""
        from .models._base import PrivacyModel
        from .models._names import default_diversity, default_k_model, make_models, models_from_names
        from .models._table import spec_by_name

        info = info or self.algorithm_info()
        params: dict[str, Any] = {"k": self.k, "l": self.l, "c": self.c, "p": self.p, "t": self.t,
                                  "distance": self.distance}
        if self.model and all(isinstance(m, PrivacyModel) for m in self.model):
            given = [f"{k}={v!r}" for k, v in params.items() if v is not None]
            if given or self.diversity is not None:
                raise InvalidParameterError(f"Give model objects or k/l/p/t, not both (got model and {', '.join(given)}).")
            return list(self.model)
        if any(not isinstance(m, str) for m in self.model):
            raise InvalidParameterError("model takes model names or PrivacyModel objects, not a mixture.")
        names = list(self.model)
        kind = default_k_model(info)
        if len(names) == 1:
            from .models._names import _normalize_model_name

            spec = spec_by_name(_normalize_model_name(names[0]))
            if spec is not None and "k" in spec.params:
                kind, names = names[0], []
        if names:
            if self.diversity is not None:
                raise InvalidParameterError("diversity (--diversity) only applies without model names; name the "
                                            "variant as the model, e.g. --model recursive-cl-diversity.")
            models = models_from_names(names, **params)
            if self.protect is not None:  # the models that protect a sensitive column protect that one
                models = [dataclasses.replace(m, sensitive=self.protect)  # type: ignore[type-var]
                          if hasattr(m, "sensitive") else m for m in models]
            return models
        diversity = self.diversity
        if self.l is not None and diversity is None:
            diversity = default_diversity(info)
        return make_models(diversity=diversity, kind=kind, sensitive=self.protect, **params)

    def inputs(self) -> list[Path]:
        """Files this job reads (an output may never be one of them)."""
        files: list[Path] = []
        if isinstance(self.input, (str, Path)):
            files.append(Path(self.input))
        files += [Path(v) for v in dict(self.hierarchies or {}).values()
                  if isinstance(v, (str, Path)) and str(v) not in ("ordered", "flat", "dates") and ":" not in str(v)]
        return files

    def load(self) -> Any:
        """The input as a :class:`~ktype.Dataset`, read as :attr:`reading` says."""
        return load_input(self.input, dataset=self.dataset, quasi_identifiers=self.quasi_identifiers,
                          sensitive=self.sensitive, identifiers=self.identifiers, insensitive=self.insensitive,
                          hierarchies=self.hierarchies, reading=self.reading, rows=self.rows)


# ---------------------------------------------------------------------- running
@dataclass
class JobResult:
    """What :func:`run_job` returns: the verified release, the dataset it came from, and the
    summary (computed on first use: measures and prosecutor risk cost a pass over the data)."""

    job: AnonymizationJob
    release: Any
    dataset: Any
    algorithm: str
    models: list[Any]
    load_s: float
    written: dict[str, str] = field(default_factory=dict)
    _summary: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """The job's summary: input, roles, models, the release's own summary, information
        loss and prosecutor risk before and after (the ``ktype anonymize --json`` output)."""
        if self._summary is None:
            from .measures import compute as compute_measures

            ds, rel, job = self.dataset, self.release, self.job
            if isinstance(job.input, (str, Path)):
                source = str(job.input)
            elif job.dataset:
                source = f"bundled:{job.dataset}"
            else:
                source = f"in-memory:{getattr(ds, 'name', 'dataset')}"
            s: dict[str, Any] = {
                "input": source,
                "rows": ds.n,
                "quasi_identifiers": ds.quasi_identifiers,
                "sensitive": ds.sensitive,
                "published_unchanged": ds.sensitive + ds.insensitive,
                "removed_identifiers": ds.identifiers,
                "models": [str(m) for m in self.models],
                "verified": True,
                "load_s": round(self.load_s, 3),
                **rel.summary(),
                "measures": compute_measures(rel),
                "risk": prosecutor_risk_before_after(ds, rel),
            }
            s["warnings"] = list(s.get("warnings", []))
            if "output" in self.written:
                s["output"] = self.written["output"]
                s["output_read_back"] = {"rows": rel.n - rel.n_suppressed, "columns": len(rel._published_columns()),
                                         "identical_to_verified_release": True}
            self._summary = s
        return self._summary


def prosecutor_risk_before_after(ds: Any, rel: Any) -> dict[str, Any]:
    """Prosecutor re-identification risk of the input and of the release, for the summary
    (``ktype risk`` gives the journalist/marketer models, population uniqueness and SUDA)."""
    from .risk import reidentification_risk

    out: dict[str, Any] = {}
    for key, subject in (("input", ds), ("release", rel)):
        try:
            p = reidentification_risk(subject).prosecutor
        except (KtypeError, NotImplementedError) as e:
            out[key] = f"not computed: {e}"
            continue
        out[key] = {"highest": p.highest, "average": p.average, "threshold": p.threshold,
                    "records_above_threshold": p.records_above_threshold}
    return out


def _sidecar(out: Path) -> Path:
    from .release import sidecar_path

    return sidecar_path(out)


def _check_outputs(job: AnonymizationJob, extra_inputs: Sequence[Path] = ()) -> str | None:
    """Refuse unsafe output paths before any work is done (``ktype.io._files.check_output_path``)."""
    from .io._files import check_output_path, output_format

    out_path = Path(job.output) if job.output is not None else None
    sum_path = Path(job.summary) if job.summary is not None else None
    inputs = [*job.inputs(), *extra_inputs]
    out_fmt = None
    if out_path is not None:
        out_fmt = output_format(out_path, job.format)
        check_output_path(out_path, what="output", inputs=inputs, others={"summary": sum_path}, force=job.force,
                          mkdirs=job.mkdirs)
    side = _sidecar(out_path) if out_path is not None and out_fmt == "csv" else None
    if sum_path is not None:
        check_output_path(sum_path, what="summary", inputs=inputs, others={"output": out_path, "metadata sidecar": side},
                          force=job.force, mkdirs=job.mkdirs)
    if side is not None:
        check_output_path(side, what="metadata sidecar", inputs=inputs, others={"output": out_path}, force=job.force,
                          mkdirs=True)
    return out_fmt


def run_job(job: AnonymizationJob, *, progress: Any = None, extra_inputs: Sequence[Path] = (),
            status: Any = None) -> JobResult:
    """Run one job: refuse unsafe outputs first, load the input, build the models, run the
    algorithm (the release is verified by every model's independent checker), then write the
    release (read back and compared before it is kept) and the JSON summary.

    ``extra_inputs`` are files the outputs must not overwrite besides the job's own inputs
    (the command line passes its config file). ``status(text)`` is a context manager shown
    while the algorithm runs (the command line's spinner)."""
    import contextlib
    import json

    if not isinstance(job, AnonymizationJob):
        raise InvalidParameterError(f"run_job takes an AnonymizationJob; got {type(job).__name__}.")
    out_fmt = _check_outputs(job, extra_inputs)
    info = job.algorithm_info()
    options = job.check_options(info)
    t0 = time.perf_counter()
    ds = job.load()
    t_load = time.perf_counter() - t0
    models = job.models(info)
    ctx = status(f"[bold]{info.name}[/] on {ds.n:,} rows x {ds.r} QIs ...") if status else contextlib.nullcontext()
    with ctx:
        rel = info.func(ds, models, rng=job.rng, progress=progress, **options)
    result = JobResult(job=job, release=rel, dataset=ds, algorithm=info.name, models=models, load_s=t_load)
    try:
        if job.output is not None:
            rel.save(Path(job.output), format=out_fmt, csv_escape=job.csv_escape)
            result.written["output"] = str(job.output)
        if job.summary is not None:
            from .io._files import atomic_write_text

            atomic_write_text(Path(job.summary), json.dumps(result.summary(), indent=2, default=str))
            result.written["summary"] = str(job.summary)
    except OSError as e:
        raise KtypeError(f"Cannot write {e.filename or job.output}: {e.strerror or e}.") from None
    return result
