"""`citewise eval beir|qa` and `citewise stats`: measure retrieval, describe an index.

Thin commands over `index.evaluate` and `Store.stats`; answer-quality metrics for `eval qa` are
added by the assistant room on top of the per-item results `evaluate_qa` returns.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ..settings import Settings, check_model
from .common import BadInput, cli_settings, friendly_errors, index_option, vector_store_options
from .common import dump as _dump


def _open_store(settings: Settings) -> Any:
    from index import Store

    return Store.open(settings.index_dir())

MODES_HELP = "Search modes to compare (repeatable). Default: dense, lexical, hybrid, default."


def _table(results: dict[str, dict[str, float]], title: str) -> str:
    metrics = list(next(iter(results.values())).keys()) if results else []
    w = max([10, *(len(m) + 1 for m in results)])
    lines = [title, f"{'mode':<{w}}" + "".join(f"{m:>12}" for m in metrics)]
    for mode, values in results.items():
        lines.append(f"{mode:<{w}}" + "".join(
            f"{values[m]:>12.0f}" if m == "questions" else f"{values[m]:>12.4f}" for m in metrics))
    return "\n".join(lines)


def _embedder(model: str | None) -> Any:
    from ..api import make_embedder

    return make_embedder(check_model(model))


@click.group("eval")
def eval_group() -> None:
    """Measure retrieval quality on a BEIR dataset or a QA file."""


@eval_group.command("beir")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the index here (a re-run then embeds nothing). Default: a temporary directory.")
@click.option("--model", help="Embedding model name or local path (default: the packaged all-MiniLM-L6-v2).")
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv to use.")
@click.option("--mode", "modes", multiple=True, help=MODES_HELP)
@click.option("--max-queries", type=int, help="Only the first N judged queries (quick checks).")
@click.option("--reranker", metavar="NAME|PATH",
              help="Also measure default with its best documents re-ranked, beside it (mode default+rerank): "
                   "'reading' (citewise's reading model) or the folder of a local cross-encoder.")
@click.option("--rerank-depth", type=click.IntRange(1, 1000), default=30, show_default=True, metavar="N",
              help="Candidates the reranker re-scores.")
@click.option("--json", "as_json", is_flag=True, help='{"dense": {...}, "lexical": {...}, "hybrid": {...}, "default": {...}}')
@vector_store_options
@friendly_errors
def eval_beir(folder: Path, index_dir: Path | None, model: str | None, split: str, modes: tuple[str, ...],
              max_queries: int | None, reranker: str | None, rerank_depth: int, as_json: bool,
              vectors: dict[str, Any]) -> None:
    """Index a BEIR-layout FOLDER (corpus.jsonl, queries.jsonl, qrels/) with the real pipeline and
    report nDCG@10, Recall@10, Recall@100 and MRR@10 per search mode (pytrec_eval).

    \b
    Examples:
      citewise eval beir ../shared/eval/beir/cranfield --index /tmp/cranfield-index
      citewise eval beir ../shared/eval/beir/cranfield --store milvus --mode default
      citewise eval beir ../shared/eval/beir/cacm --mode default --reranker reading
    """
    from index.evaluate import EVAL_MODES, evaluate_beir
    from index.rerank import CrossEncoderReranker, ReadingReranker

    settings = cli_settings(**vectors)
    if reranker is not None and reranker != "reading" and not Path(reranker).expanduser().is_dir():
        raise click.BadParameter(f"{reranker!r} is neither 'reading' nor the folder of a local cross-encoder",
                                 param_hint="--reranker")
    chosen = (None if reranker is None else ReadingReranker() if reranker == "reading"
              else CrossEncoderReranker(reranker))
    results = evaluate_beir(folder, _embedder(model), index_dir=index_dir, modes=modes or EVAL_MODES,
                            split=split, max_queries=max_queries, vectors=settings.vector_config_given(),
                            milvus_token=settings.token(), fusion=settings.fusion(),
                            reranker=chosen, rerank_depth=rerank_depth)
    if as_json:
        _dump(results)
    else:
        click.echo(_table(results, f"{folder.name} ({split}): documents ranked by their best chunk; "
                                   "hybrid = RRF(60), default = the retrieval settings"))


@eval_group.command("qa")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--docs", "docs_dir", required=True, type=click.Path(exists=True, path_type=Path),
              help="The documents the questions are about (indexed with the real pipeline).")
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Index DOCS into this directory and keep it. Default: a temporary directory.")
@click.option("--model", help="Embedding model name or local path (default: the packaged all-MiniLM-L6-v2).")
@click.option("--mode", "modes", multiple=True, help=MODES_HELP)
@click.option("--items", "show_items", is_flag=True, help="Also list each question's first supporting rank (default mode).")
@click.option("--json", "as_json", is_flag=True, help='{"dense": {...}, ..., "default": {...}} (+ "items" with --items)')
@friendly_errors
def eval_qa(file: Path, docs_dir: Path, index_dir: Path | None, model: str | None, modes: tuple[str, ...],
            show_items: bool, as_json: bool) -> None:
    """Recall@1/4/10 and MRR@10 of retrieval for the questions in FILE (JSON lines with "q", "docs"
    file-name prefixes and "gold" strings). A hit is a chunk of a listed document containing a gold
    string; questions about several documents count the fraction covered; questions without
    documents are skipped. Records with a "split" are also scored per split ("default (heldout)").
    The "ask" rows score the assistant's retrieval (`Assistant.retrieve`, what the LangChain retriever
    returns: the hits `citewise ask` reads, scoped to the people or documents a question names, then
    ordered by the reader's probabilities), over all questions and over those about one document.

    \b
    Example:
      citewise eval qa ../shared/eval/seed_dev.jsonl --docs examples/profiles
    """
    from index import Searcher, index_paths
    from index.evaluate import EVAL_MODES, QAResult, QueryCache, evaluate_qa, load_qa
    from index.store import Store

    settings = cli_settings()
    items = load_qa(file)
    embedder = QueryCache(_embedder(model))
    with tempfile.TemporaryDirectory(prefix="citewise-qa-") as tmp:
        store = Store.create(index_dir or Path(tmp), embedder.name, embedder.dim)
        try:
            index_paths([docs_dir], store, embedder, prune=True)
            searcher = Searcher(store, embedder, fusion=settings.fusion())
            results: dict[str, Any] = {}
            per_item: list[QAResult] = []
            splits = sorted({str(i.raw["split"]) for i in items if i.raw.get("split")})
            for mode in modes or EVAL_MODES:
                _, items_out = evaluate_qa(searcher, items, mode)
                results.update(_rows(items_out, splits, mode, mode))
                if mode == "default" or not per_item:
                    per_item = items_out
            if "default" in results:  # the same one-document questions, searched unscoped, beside "ask"
                one = [r for r in per_item if len(r.item.docs) == 1]
                results.update(_rows(one, splits, "default, 1-doc questions", "default, 1-doc"))
            results.update(_ask_retrieval(store, embedder, items, settings, splits))
            answers, answer_items = _answer_metrics(store, embedder, items, settings)
            reader_table, by_split = _reader_table(store, embedder, items, settings)
        finally:
            store.close()
    rows = [{"id": r.item.id, "question": r.item.question, "docs": list(r.item.docs), "first_rank": r.first_rank(),
             "recall@4": r.recall(4)} for r in per_item if r.item.docs]
    if as_json:
        out = {**results, "answers": answers, "answers_by_split": by_split}
        _dump({**out, "items": rows, "answer_items": [a.to_dict() for a in answer_items]} if show_items else out)
        return
    click.echo(_table(results, f"{file.name}: retrieval over {docs_dir}"))
    click.echo(_answer_table(answers))
    click.echo(reader_table)
    if show_items:
        for row in rows:
            click.echo(f"{row['id']:>6}  rank {row['first_rank'] or '-':>3}  recall@4 {row['recall@4']:.2f}  {row['question']}")
        for a in answer_items:
            click.echo(f"{a.id:>6}  {'ok ' if a.correct else 'BAD'}  {'abstained' if a.abstained else 'answered '}  {a.question}")


def _ask_retrieval(store: Any, embedder: Any, items: Any, settings: Settings,
                   splits: Sequence[str]) -> dict[str, dict[str, float]]:
    """Recall of the assistant's retrieval (`Assistant.retrieve`: scoped to the people or documents a
    question names, every person's best chunks for a "who" question, then ordered by the reader's
    probabilities, people by the "who" model's), over all questions and over those about one document."""
    from index.evaluate import qa_results

    from ..api import Assistant

    assistant = Assistant(store, embedder, settings=settings)
    res = qa_results(assistant.retrieve, [i for i in items if i.docs])
    rows = _rows(res, splits, "ask", "ask")
    rows.update(_rows([r for r in res if len(r.item.docs) == 1], splits, "ask, 1-doc questions", "ask, 1-doc"))
    return {k: v for k, v in rows.items() if v}


def _rows(results: Sequence[Any], splits: Sequence[str], overall: str, prefix: str) -> dict[str, dict[str, float]]:
    """Retrieval metrics of `results` as the row `overall`, and per split ("PREFIX (heldout)") when
    there are several splits: tune and heldout side by side."""
    from index.evaluate import qa_metrics

    rows = {overall: qa_metrics(results)}
    for split in splits if len(splits) > 1 else ():
        rows[f"{prefix} ({split})"] = qa_metrics([r for r in results if r.item.raw.get("split") == split])
    return rows


def _answer_metrics(store: Any, embedder: Any, items: Any, settings: Settings) -> tuple[dict[str, float], list[Any]]:
    """Answer metrics of the assistant's `ask` (the default writer) over the same index."""
    from ..answer_eval import evaluate_answers
    from ..api import Assistant

    assistant = Assistant(store, embedder, settings=settings)

    def chunk_text(chunk_id: str) -> str | None:
        chunk = store.chunk(chunk_id)
        return chunk.text if chunk else None

    return evaluate_answers(assistant.ask, [i.raw or {"q": i.question} for i in items], chunk_text)


def _reader_table(store: Any, embedder: Any, items: Any, settings: Settings) -> tuple[str, dict[str, Any]]:
    """Answers per split and question type, beside the rule-free window baseline (`answer.evaluate`)."""
    from ..answer.evaluate import evaluate_index, table
    from ..api import Assistant

    assistant = Assistant(store, embedder, settings=settings)
    results, _ = evaluate_index(store, embedder, [i.raw or {"q": i.question} for i in items], assistant=assistant)
    title = "answers per split / type (reader = citewise ask; baseline = best top-4 window, never abstains)"
    clean = {sys_: {row: {k: (None if v != v else v) for k, v in m.items()} for row, m in rows.items()}
             for sys_, rows in results.items()}  # NaN (no items of a kind) -> null in JSON
    return f"{title}\n{table(results)}", clean


def _answer_table(m: dict[str, float]) -> str:
    pct = ("answer_accuracy", "abstention_accuracy", "citation_precision", "citation_gold_rate", "quote_validity",
           "person_coverage")
    lines = ["answers (citewise ask, default writer)"]
    lines += [f"  {k:<22}{m[k] * 100:>7.1f} %" for k in pct]
    lines += [f"  {k:<22}{m[k]:>7.0f}" for k in ("false_abstentions", "false_answers", "answerable", "unanswerable")]
    return "\n".join(lines)


@click.command("train-reader")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--docs", "docs_dir", required=True, type=click.Path(exists=True, path_type=Path),
              help="The documents the questions are about (indexed with the real pipeline).")
@click.option("--also", "extra", multiple=True, type=(click.Path(exists=True, dir_okay=False, path_type=Path),
              click.Path(exists=True, path_type=Path)), help="Another QA_FILE DOCS pair to fit on (repeatable).")
@click.option("--index", "index_root", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the indexes under this directory (a re-run embeds nothing new).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the parameters here. Default: the packaged reader.json.")
@click.option("--keep-ranker", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Keep the candidate ranker of this parameters file (e.g. the packaged reader.json) and refit "
                   "only what reads its probabilities: the second stage over the reading model's scores, the "
                   "\"who\" model, answerability and the thresholds. Features this version has and the file "
                   "lacks get their weights fitted beside the kept ones.")
@click.option("--reading-model", "reading", default="none", show_default=True,
              help="The reading model that reads the best candidates while fitting: 'packaged', a local folder, "
                   "or 'none'. With one, the second stage over its scores is fitted and the default output is "
                   "the packaged reader-reading.json.")
@click.option("--keep-answerability", is_flag=True,
              help="With --keep-ranker: keep its answerability model and thresholds too, and fit only the "
                   "weights of the features the file lacks.")
@click.option("--calibrate", is_flag=True,
              help="Fit only how sure answers say they are: ask every tune question with the packaged parameters "
                   "and fit each parameter file's calibration (reader.json and reader-reading.json, written in "
                   "place) to whether its answers were right.")
@click.option("--json", "as_json", is_flag=True, help="The fitting report as JSON.")
@friendly_errors
def train_reader(file: Path, docs_dir: Path, extra: tuple[tuple[Path, Path], ...], index_root: Path | None,
                 out: Path | None, keep_ranker: Path | None, keep_answerability: bool, reading: str,
                 calibrate: bool, as_json: bool) -> None:
    """Fit the answer reader on the tune split of FILE (records without "split" count as tune; heldout
    records are never read): a listwise ranker over candidate features, Platt-scaled, its penalty chosen
    by cross-validation grouped by document; the second stage over the reading model's scores of the
    best candidates (fitted on the ranker's out-of-fold probabilities); the abstention threshold for
    <= 5 % false abstentions; the "who" document model. Use parameters written with --out via
    CITEWISE_ANSWER__READER=PATH. With --calibrate, only how sure answers say they are is fitted (on
    whether the tune answers were right); a full refit writes none, so run --calibrate after it.

    \b
    Example:
      citewise train-reader ../shared/eval/realdocs/qa.jsonl --docs ../shared/eval/realdocs/docs \\
          --also ../shared/eval/seed_dev.jsonl examples/profiles --index /tmp/reader-indexes
      citewise train-reader ../shared/eval/realdocs/qa.jsonl --docs ../shared/eval/realdocs/docs \\
          --keep-ranker assistant/answer/reader.json --out /tmp/reader.json
      citewise train-reader ../shared/eval/realdocs/qa.jsonl --docs ../shared/eval/realdocs/docs \\
          --keep-ranker /tmp/older-reader.json --keep-answerability --out /tmp/reader.json
      citewise train-reader ../shared/eval/realdocs/qa.jsonl --docs ../shared/eval/realdocs/docs \\
          --keep-ranker assistant/answer/reader.json --reading-model packaged --out /tmp/reader-reading.json
      citewise train-reader ../shared/eval/realdocs/qa.jsonl --docs ../shared/eval/realdocs/docs \\
          --also ../shared/eval/papers/qa.jsonl ../shared/eval/papers/docs --calibrate
    """
    from ..answer.model import PARAMS, READING_PARAMS
    from ..answer.train import train_files

    if calibrate:
        if out or keep_ranker or keep_answerability or reading not in ("none", "off"):
            raise BadInput("--calibrate fits the packaged parameter files in place: leave out --out, "
                           "--keep-ranker, --keep-answerability and --reading-model")
        from ..answer.calibrate import calibrate_files

        try:
            found = calibrate_files([(file, docs_dir), *extra], index_root=index_root)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from exc
        if as_json:
            _dump(found)
            return
        for name, r in found.items():
            if not r.get("written"):
                click.echo(f"{name}: {r['answers']} answers cannot fit a calibration (too few, or all right or all "
                           "wrong); left as it was")
                continue
            click.echo(f"{name}: {r['answers']} answers, {r['right']:.0%} right; mean confidence "
                       f"{r['mean_confidence'][0]:.2f} -> {r['mean_confidence'][1]:.2f}, Brier {r['brier'][0]:.3f} -> "
                       f"{r['brier'][1]:.3f}, calibration error {r['ece'][0]:.3f} -> {r['ece'][1]:.3f} "
                       f"(a {r['a']}, b {r['b']}); written to {r['written']}")
        return

    reading_on = reading not in ("none", "off")
    out = out or (READING_PARAMS if reading_on else PARAMS)
    if keep_answerability and not keep_ranker:
        raise BadInput("--keep-answerability needs --keep-ranker FILE: the parameters whose answerability to keep")
    try:
        _, report = train_files([(file, docs_dir), *extra], index_root=index_root, out=out,
                                keep_ranker=keep_ranker, keep_answerability=keep_answerability,
                                reading=reading if reading_on else None)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        _dump(report)
    else:
        click.echo(f"fitted on {report['questions']} questions ({report['candidates']} candidates, "
                   f"{report['positives']} answering); penalty {report['penalty']}, cross-validated top-1 "
                   f"{report['cv_top1'][str(report['penalty'])]:.3f}, threshold {report['threshold']:.3f}, "
                   f"who threshold {report['who_threshold']:.3f}"
                   + "".join(f"; {n} weighs {w:+.3f}" for n, w in (report.get("added") or {}).items())
                   + (f"; second stage top-1 {report['second_cv_top1']:.3f} (ranker alone {report['first_cv_top1']:.3f})"
                      if "second_cv_top1" in report else "")
                   + f"; written to {out}")


@click.command("stats")
@index_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly_errors
def stats(index_dir: Path | None, as_json: bool) -> None:
    """Describe the index: counts, embedder, the FAISS index kind (exact or approximate), and the
    retrieval and answer settings questions are answered with (see `citewise settings`).

    \b
    Examples:
      citewise stats --json
      citewise --preset rrf stats
    """
    from .config import settings_summary

    settings = cli_settings(index=index_dir)
    store = _open_store(settings)
    try:
        info = store.stats()
    finally:
        store.close()
    summary = settings_summary(settings)
    if as_json:
        _dump({**info, "settings": summary})
        return
    kind = info["vector_index_description"]
    extra = f", nlist {info['nlist']}, nprobe {info['nprobe']}" if "nlist" in info else ""
    click.echo(
        f"{info['index']}\n  {info['documents']} documents, {info['chunks']} chunks, {info['vectors']} vectors\n"
        f"  embedder: {info['embedder']} ({info['dim']}-d)\n"
        f"  vector index: {kind}{extra} (exact below {info['exact_max']:,} vectors)\n"
        f"{_milvus_line(info)}"
        f"  lexical index: SQLite FTS5, tokenizer v{info['lexical_tokenizer']}, BM25 from postings of "
        f"{info['lexical_terms']:,} terms; schema v{info['schema_version']}, "
        f"generation {info['generation']}\n"
        f"  settings: preset {summary['preset'] or '-'}; retrieval "
        + " ".join(f"{k}={v}" for k, v in summary["retrieval"].items())
        + "; answer " + " ".join(f"{k}={v}" for k, v in summary["answer"].items())
    )


def _milvus_line(info: dict[str, Any]) -> str:
    if info.get("vector_store") != "milvus":
        return ""
    return f"  vector store: Milvus collection {info['milvus_collection']} at {info['milvus_uri']}\n"
