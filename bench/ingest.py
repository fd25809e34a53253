"""Ingest speed: parsing and chunking a generated corpus of PDFs and DOCX files, next to embedding.

Prints, from one run:
- pages/s parsed and chunks/s produced over the whole corpus (default 200 documents, half PDF,
  half DOCX, three pages each);
- embedding throughput of the real default model on a subset of those chunks, and the ratio of
  parse+chunk time to embed time per chunk (parsing must not be the bottleneck: ratio << 1);
- chunks/s of the whole `index_paths` path (discover, hash, parse, chunk, embed, FAISS, SQLite) on a
  few documents with 1 and with 2 worker processes (`--workers 1,2`), next to raw
  `SentenceTransformer.encode` of the very same texts (target >= 0.9 with 1 worker), taken in turns
  `--repeat` times; the worker pool's start-up is measured alone (cold: in a fresh process, as one
  `citewise index --workers 2` run pays it; warm: once the forkserver runs) and the pool's rate is
  also shown without its warm start-up (the steady state of a long ingestion).
Embedding is the slow part (~8 chunks/s on 2 busy cores), so only a subset is embedded by default:
the output says how many. Flags make bigger runs: `--docs 1000 --embed-chunks 512 --index-docs 40`.
The generated corpus is kept in the temp folder (`--corpus`) and reused by the next run with the
same size; generating it (fpdf2, python-docx) costs more than parsing it.

    python bench/ingest.py [--docs N] [--pages P] [--embed-chunks N] [--index-docs N] [--corpus DIR]
                           [--workers 1,2] [--repeat 2]

With `--chunk-sizes 400,600,800` it measures retrieval instead (how DEFAULT_CHUNK_SIZE was chosen):
seed_dev QA Recall@k/MRR over examples/profiles for each size, and with `--beir DIR` a BEIR dataset's
nDCG@10 too (Cranfield takes ~10 minutes a size on 2 busy cores). Needs ../shared.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from ingest_files import random_pages, write_docx, write_pdf  # noqa: E402

from ingest import chunk_document, load_document  # noqa: E402


def generate(folder: Path, n_docs: int, pages: int) -> list[Path]:
    rng = random.Random(42)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(n_docs):
        content = random_pages(rng, pages)
        if i % 2 == 0:
            files.append(write_pdf(folder / f"doc{i:04d}.pdf", content))
        else:
            files.append(write_docx(folder / f"doc{i:04d}.docx", content))
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=200, help="documents in the corpus (half PDF, half DOCX)")
    ap.add_argument("--pages", type=int, default=3, help="pages per document")
    ap.add_argument("--embed-chunks", type=int, default=64, help="chunks embedded to measure embedding speed")
    ap.add_argument("--index-docs", type=int, default=16, help="documents run through the whole index_paths path")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts compared in index_paths")
    ap.add_argument("--repeat", type=int, default=2, help="runs of the index_paths comparison (taken in turns)")
    ap.add_argument("--corpus", type=Path, help="folder of the generated corpus (default: in the temp folder)")
    ap.add_argument("--chunk-sizes", help="comma-separated chunk sizes: measure retrieval quality instead")
    ap.add_argument("--beir", type=Path, help="with --chunk-sizes: also this BEIR dataset folder")
    args = ap.parse_args()
    if args.chunk_sizes:
        sweep([int(x) for x in args.chunk_sizes.split(",")], args.beir)
        return

    with tempfile.TemporaryDirectory(prefix="citewise-bench-") as tmp:
        folder = args.corpus or Path(tempfile.gettempdir()) / f"citewise-bench-ingest-{args.docs}x{args.pages}"
        t = time.perf_counter()
        existing = sorted(folder.glob("doc*.*")) if folder.exists() else []
        reused = len(existing) >= args.docs
        files = (existing if reused else generate(folder, args.docs, args.pages))[: args.docs]
        print(f"corpus: {len(files)} documents ({sum(f.suffix == '.pdf' for f in files)} PDF, "
              f"{sum(f.suffix == '.docx' for f in files)} DOCX) in {folder}, "
              f"{'reused' if reused else f'generated in {time.perf_counter() - t:.1f} s'}")

        t = time.perf_counter()
        docs = [load_document(f) for f in files]
        parse_s = time.perf_counter() - t
        pages = sum(max(len(d.pages), 1) for d in docs)
        pdf_pages = sum(len(d.pages) for d in docs if d.format == "pdf")
        t = time.perf_counter()
        chunks = [c for d in docs for c in chunk_document(d)]
        chunk_s = time.perf_counter() - t
        print(f"parse: {pages} pages ({pdf_pages} PDF) in {parse_s:.2f} s = {pages / parse_s:.0f} pages/s, "
              f"{len(docs) / parse_s:.0f} documents/s")
        print(f"chunk: {len(chunks)} chunks in {chunk_s:.2f} s = {len(chunks) / chunk_s:.0f} chunks/s; "
              f"parse+chunk = {len(chunks) / (parse_s + chunk_s):.0f} chunks/s")

        from index import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
        embedder.embed_documents(["warm up the model"])
        subset = [c.embed_text() for c in random.Random(0).sample(chunks, min(args.embed_chunks, len(chunks)))]
        t = time.perf_counter()
        embedder.embed_documents(subset)
        embed_s = time.perf_counter() - t
        embed_rate = len(subset) / embed_s
        per_chunk_parse = (parse_s + chunk_s) / len(chunks)
        print(f"embed: {len(subset)} of {len(chunks)} chunks (a subset, to keep the run short) in {embed_s:.1f} s "
              f"= {embed_rate:.1f} chunks/s")
        print(f"ratio parse+chunk time / embed time per chunk: {per_chunk_parse * embed_rate:.4f} "
              f"(embedding the whole corpus would take ~{len(chunks) / embed_rate:.0f} s, "
              f"parsing+chunking took {parse_s + chunk_s:.1f} s)")

        index_compare(files[: args.index_docs], Path(tmp), embedder, [int(w) for w in args.workers.split(",")],
                      args.repeat)


def index_compare(files: list[Path], tmp: Path, embedder, workers: list[int], repeat: int) -> None:
    """chunks/s of the whole `index_paths` path with each worker count, next to raw encode, in turns."""
    from sentence_transformers import SentenceTransformer

    from index import Store, index_paths
    from index.embed import default_model_path
    from index.parallel import available_cores

    few = tmp / "few"
    few.mkdir(exist_ok=True)
    for f in files:
        target = few / f.name
        if not target.exists():
            target.write_bytes(f.read_bytes())
    texts = [c.embed_text() for f in sorted(few.iterdir()) for c in chunk_document(load_document(f))]
    raw = SentenceTransformer(default_model_path(), device="cpu")  # the model the embedder loads
    raw.encode(["warm up"])
    big = max(workers)
    startup = {}
    if big > 1:
        # The first pool of a process starts the forkserver (it imports torch and sentence-transformers once);
        # every pool forks its workers from it and each worker loads the model.
        startup = {"cold": pool_startup(embedder, big, tmp), "warm": pool_startup(embedder, big, tmp)}
        print(f"start-up of {big} workers, one tiny file each: {startup['cold']:.1f} s in a fresh process "
              f"(what one `citewise index --workers {big}` pays), {startup['warm']:.1f} s once the forkserver runs")
    print(f"index_paths on {len(files)} documents ({len(texts)} chunks), {available_cores()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; each run a fresh index, taken in turns; the pools' (warm) start-up counts")
    rates: dict[str, list[float]] = {}
    for rep in range(repeat):
        t = time.perf_counter()
        raw.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        rates.setdefault("raw encode", []).append(len(texts) / (time.perf_counter() - t))
        for w in workers:
            store = Store.create(tmp / f"index-{w}-{rep}", embedder.name, embedder.dim)
            t = time.perf_counter()
            report = index_paths([few], store, embedder, workers=w)
            elapsed = time.perf_counter() - t
            rates.setdefault(f"{w} worker{'s' if w > 1 else ''}", []).append(report.chunks_embedded / elapsed)
            if w > 1:
                rates.setdefault(f"{w} w. w/o start-up", []).append(report.chunks_embedded / (elapsed - startup["warm"]))
            store.close()
        line = ", ".join(f"{k} {v[-1]:.2f}" for k, v in rates.items())
        print(f"  run {rep + 1}: chunks/s {line}", flush=True)
    raw_rate = median(rates["raw encode"])
    for name, values in rates.items():
        print(f"{name:>18}: median {median(values):6.2f} chunks/s = {median(values) / raw_rate:.2f} x raw encode")
    one = rates.get("1 worker")
    for name, values in rates.items():
        if one and name not in ("raw encode", "1 worker"):
            print(f"{name} / 1 worker, per run: {', '.join(f'{b / a:.2f}' for a, b in zip(one, values, strict=True))}")


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def pool_startup(embedder, n: int, tmp: Path) -> float:
    """Seconds for a fresh pool of `n` workers to return one tiny file each."""
    from index.parallel import ProcessPool
    from index.pipeline import FileTask

    tiny = tmp / "tiny.txt"
    tiny.write_text("One short line.\n")
    pool = ProcessPool(embedder.spec(), n, 600, 100)
    t = time.perf_counter()
    for _ in range(n):
        pool.put(FileTask(str(tiny), tiny.stat().st_size, None, False))
    pool.finish()
    elapsed = time.perf_counter() - t
    pool.close()
    return elapsed


def sweep(sizes: list[int], beir: Path | None) -> None:
    """Retrieval quality per chunk size, real pipeline (index_paths, Searcher), default mode."""
    import hashlib

    from index import Searcher, SentenceTransformerEmbedder, Store, index_paths
    from index.beir import load_beir, write_corpus
    from index.evaluate import QueryCache, beir_metrics, beir_run, evaluate_qa, load_qa

    qa = REPO.parent / "shared" / "eval" / "seed_dev.jsonl"
    if not qa.exists():
        sys.exit(f"{qa} is absent: the evaluation data lives in ../shared")
    items = load_qa(qa)
    embedder = QueryCache(SentenceTransformerEmbedder())
    for size in sizes:
        overlap = min(120, size // 6)
        with tempfile.TemporaryDirectory(prefix="citewise-sweep-") as tmp:
            store = Store.create(Path(tmp) / "seed", embedder.name, embedder.dim)
            index_paths([REPO / "examples" / "profiles"], store, embedder, chunk_size=size, chunk_overlap=overlap)
            m, _ = evaluate_qa(Searcher(store, embedder), items)
            chunks = sum(d.chunks for d in store.documents())
            store.close()
            line = (f"size {size}: seed_dev ({chunks} chunks) recall@1 {m['recall@1']:.3f} recall@4 {m['recall@4']:.3f}"
                    f" mrr@10 {m['mrr@10']:.3f}")
            if beir:
                data = load_beir(beir)
                folder = Path(tmp) / "beir"
                doc_of = write_corpus(data, folder)
                seen: set[str] = set()
                for f in sorted(folder.iterdir()):  # identical files would share chunk ids
                    h = hashlib.sha256(f.read_bytes()).hexdigest()
                    if h in seen:
                        f.unlink()
                    seen.add(h)
                store = Store.create(Path(tmp) / "beir-index", embedder.name, embedder.dim)
                index_paths([folder], store, embedder, chunk_size=size, chunk_overlap=overlap)
                by_name = {Path(p).name: d for p, d in doc_of.items()}
                doc_map = {r.doc: by_name[Path(r.doc).name] for r in store.documents() if Path(r.doc).name in by_name}
                b = beir_metrics(data.qrels, beir_run(Searcher(store, embedder), data, doc_map, "default"))
                store.close()
                line += f"; {beir.name} ndcg@10 {b['ndcg@10']:.4f} recall@100 {b['recall@100']:.4f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
