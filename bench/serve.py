"""What `trove serve` gives: a question asked through a running server against the CLI alone (which
loads the models each time), in the same run; then 1, 4 and 8 concurrent clients on `search` and on
`ask` over the loopback address: throughput, p50/p95, errors and the server's peak RSS. Bounded in
count and time. Data: Cranfield abstracts and WTQ tables from ../shared/eval, questions from
Cranfield's own queries.

    python -m bench.serve [--docs 200] [--llm default] [--searches 20] [--asks 1] [--cold 2]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from bench.answers.disk import EVAL

CLIENTS = (1, 4, 8)
LIMIT_S = 900.0  # no client round runs past this


Call = Callable[[], tuple[float, int, float | None]]  # -> seconds, HTTP status, seconds to the first word


@dataclass
class Round:
    latencies: list[float] = field(default_factory=list)
    first_words: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def row(self, what: str, clients: int) -> str:
        rate = len(self.latencies) / self.wall_s if self.wall_s else 0.0
        first = f"{_ms(statistics.median(self.first_words))} / {_ms(_p95(self.first_words))}" \
            if self.first_words else "–"
        return (f"| {what} | {clients} | {len(self.latencies)} | {rate:.2f}/s | "
                f"{_ms(statistics.median(self.latencies or [float('nan')]))} | {_ms(_p95(self.latencies))} | "
                f"{first} | {len(self.errors)} |")


def _p95(values: list[float]) -> float:
    ordered = sorted(values) or [float("nan")]
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _folder(dest: Path, docs: int) -> Path:
    """`docs` Cranfield abstracts as text files and a few WTQ tables: a small real disk."""
    if not EVAL.is_dir():
        raise SystemExit(f"{EVAL}: the shared eval data is not here; bench.serve needs it")
    (dest / "abstracts").mkdir(parents=True)
    with (EVAL / "text" / "cranfield" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for _, line in zip(range(docs), fh, strict=False):
            doc = json.loads(line)
            (dest / "abstracts" / f"{doc['_id']}.txt").write_text(
                f"{doc.get('title', '').strip()}\n\n{doc['text'].strip()}\n", encoding="utf-8")
    (dest / "tables").mkdir()
    for table in sorted((EVAL / "tables" / "wtq" / "csv").glob("*.csv"))[:5]:
        (dest / "tables" / table.name).write_bytes(table.read_bytes())
    return dest


def _questions(n: int) -> list[str]:
    with (EVAL / "text" / "cranfield" / "queries.jsonl").open(encoding="utf-8") as fh:
        return [" ".join(json.loads(line)["text"].split()) for _, line in zip(range(n), fh, strict=False)]


def _cli(args: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True, env=env,
                          timeout=LIMIT_S)
    return time.perf_counter() - t0, done


def _post(url: tuple[str, int], path: str, body: dict) -> tuple[float, int, float | None]:
    """One request; for a streamed answer, also when its first word came (an `event: token`)."""
    connection = http.client.HTTPConnection(*url, timeout=LIMIT_S)
    t0, first = time.perf_counter(), None
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    reply = connection.getresponse()
    for line in reply:
        if first is None and line == b"event: token\n":
            first = time.perf_counter() - t0
    connection.close()
    return time.perf_counter() - t0, reply.status, first


def _round(clients: int, calls: list[Call]) -> Round:
    """`calls` shared out among `clients` threads, all started together."""
    out, lock = Round(), threading.Lock()
    shares = [calls[i::clients] for i in range(clients)]

    def client(mine: list[Call]) -> None:
        for call in mine:
            try:
                seconds, status, first = call()
            except OSError as exc:
                with lock:
                    out.errors.append(str(exc))
                continue
            with lock:
                if status != 200:
                    out.errors.append(str(status))
                    continue
                out.latencies.append(seconds)
                out.first_words += [first] if first is not None else []

    threads = [threading.Thread(target=client, args=(share,)) for share in shares]
    t0 = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LIMIT_S)
    out.wall_s = time.perf_counter() - t0
    return out


def _start(home: Path, llm: str, env: dict[str, str]) -> tuple[subprocess.Popen, tuple[str, int]]:
    server = subprocess.Popen([sys.executable, "-m", "engine.cli", "serve", "--home", str(home), "--port", "0",
                               "--llm", llm, "--wait-limit", str(LIMIT_S)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            host, port = json.loads((home / "server.json").read_text())["url"].removeprefix("http://").rsplit(":", 1)
            http.client.HTTPConnection(host, int(port), timeout=5).request("GET", "/openapi.json")
            return server, (host, int(port))
        except (OSError, ValueError, KeyError):
            time.sleep(0.5)
    server.kill()
    raise SystemExit("trove serve did not start within 300 s")


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200, help="Cranfield abstracts on the disk")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--searches", type=int, default=20, help="searches per client count")
    parser.add_argument("--asks", type=int, default=1, help="questions per client, per client count")
    parser.add_argument("--cold", type=int, default=2, help="questions asked both ways (server, CLI alone)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home, env = Path(tmp) / "home", {k: v for k, v in os.environ.items() if k != "TROVE_NO_SERVER"}
        index_s, done = _cli(["index", str(_folder(Path(tmp) / "disk", args.docs)), "--home", str(home)], env)
        if done.returncode:
            raise SystemExit(f"indexing failed: {done.stderr}")
        print(f"{args.docs} abstracts and 5 tables indexed in {index_s:.0f} s; LLM {args.llm}; 2 cores\n")
        questions = _questions(max(args.cold, max(CLIENTS) * args.asks, args.searches))
        server, url = _start(home, args.llm, env)
        try:
            _compare(home, questions[:args.cold], args.llm, env)
            print("\n| call | clients | done | throughput | p50 | p95 | first words p50 / p95 | errors |\n"
                  "|---|---:|---:|---:|---:|---:|---:|---:|")
            for clients in CLIENTS:
                searches: list[Call] = [partial(_post, url, "/search", {"query": q, "k": 10})
                                        for q in (questions * clients)[:args.searches * clients]]
                print(_round(clients, searches).row("search", clients), flush=True)
            for clients in CLIENTS:
                asks: list[Call] = [partial(_post, url, "/ask", {"question": q, "stream": True})
                                    for q in questions[:clients * args.asks]]
                print(_round(clients, asks).row("ask", clients), flush=True)
            print(f"\nserver peak RSS: {_peak_rss_mb(server.pid):.0f} MB")
        finally:
            server.terminate()
            server.wait(30)
    return 0


def _compare(home: Path, questions: list[str], llm: str, env: dict[str, str]) -> None:
    """Each question asked by `trove ask` through the running server, then by the CLI alone."""
    print("| question | through the server | CLI alone (loads the models) | ratio |\n|---|---:|---:|---:|")
    for i, question in enumerate(questions, start=1):
        served_s, a = _cli(["ask", question, "--json", "--home", str(home)], env)
        alone_s, b = _cli(["ask", question, "--json", "--home", str(home), "--llm", llm],
                          {**env, "TROVE_NO_SERVER": "1"})
        failed = [d.stderr.strip()[-200:] for d in (a, b) if d.returncode]
        print(f"| {i} | {served_s:.1f} s | {alone_s:.1f} s | {alone_s / served_s:.1f}× |"
              + (f" failed: {failed}" if failed else ""), flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
