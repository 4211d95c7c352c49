"""A tiny OpenAI-compatible server with a vLLM-like /metrics, for capturing
what AIPerf 0.13 makes of real, changing Prometheus metrics (run.sh).

/v1/chat/completions answers after a random delay; /metrics is a real
prometheus_client registry (what vLLM and SGLang use) whose values follow the
load: running requests, tokens, request latency and token histograms (with
two label sets), plus a counter that resets mid-run, a series that appears
mid-run, an untyped family, a summary, an _info gauge and _created series.
A scrape counter makes every scrape different, so AIPerf's JSONL (which drops
repeated scrapes) holds every scrape it summarised.

  python serve.py PORT
"""

import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info, Summary, generate_latest
from prometheus_client.core import GaugeMetricFamily, UntypedMetricFamily

reg = CollectorRegistry()
M = {"model_name": "tiny"}
running = Gauge("test:num_requests_running", "Number of requests running.", ["model_name"], registry=reg)
kv = Gauge("test:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent.", ["model_name"], registry=reg)
prompt = Counter("test:prompt_tokens", "Number of prefill tokens processed.", ["model_name"], registry=reg)
gen = Counter("test:generation_tokens", "Number of generation tokens processed.", ["model_name"], registry=reg)
reqs = Counter("test:request_success", "Count of successfully processed requests.", ["model_name", "finished_reason"], registry=reg)
scrapes = Counter("test:scrapes", "Scrapes answered.", registry=reg)
restarting = Counter("test:restarting", "A counter whose process restarts at scrape 25.", registry=reg)
e2e = Histogram("test:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", ["model_name"],
                buckets=[0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.3, 1.0, 2.5], registry=reg)
toks = Histogram("test:request_tokens", "Number of tokens per request.", ["model_name", "kind"],
                 buckets=[1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0], registry=reg)
queue = Summary("test:queue_time_seconds", "Queue time (a summary: not summarised).", registry=reg)
Info("test:build", "Build information.", registry=reg).info({"version": "0.0.1", "backend": "python"})

lock = threading.Lock()
state = {"scrapes": 0}


class Extra:
    """Families prometheus_client has no class for: an untyped value and a
    gauge that appears at scrape 15."""

    def collect(self):
        n = state["scrapes"]
        u = UntypedMetricFamily("test:untyped_load", "An untyped value.")
        u.add_metric([], float(n % 7))
        yield u
        if n >= 15:
            late = GaugeMetricFamily("test:late_gauge", "Appears at scrape 15.", labels=["worker"])
            late.add_metric(["w1"], float(n))
            yield late


reg.register(Extra())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, code, body, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/metrics":
            return self._send(404, b"not found", "text/plain")
        with lock:
            state["scrapes"] += 1
            n = state["scrapes"]
            scrapes.inc()
            if n == 25:
                restarting.reset()
            restarting.inc(1.5)
            kv.labels(**M).set(round(0.05 + 0.9 * ((n * 37) % 100) / 100, 4))
            body = generate_latest(reg)
        self._send(200, body, "text/plain; version=0.0.4; charset=utf-8")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        req = json.loads(self.rfile.read(n) or b"{}")
        start = time.perf_counter()
        running.labels(**M).inc()
        delay = random.lognormvariate(-3.6, 0.5)
        time.sleep(delay)
        ptoks = sum(len(str(m.get("content", "")).split()) for m in req.get("messages", []))
        otoks = random.randint(5, 40)
        running.labels(**M).dec()
        with lock:
            prompt.labels(**M).inc(ptoks)
            gen.labels(**M).inc(otoks)
            reqs.labels(model_name="tiny", finished_reason="length" if otoks > 30 else "stop").inc()
            e2e.labels(**M).observe(time.perf_counter() - start)
            toks.labels(model_name="tiny", kind="prompt").observe(ptoks)
            toks.labels(model_name="tiny", kind="generation").observe(otoks)
            queue.observe(delay / 10)
        text = " ".join("tok" for _ in range(otoks))
        out = {
            "id": "cmpl-1", "object": "chat.completion", "created": int(time.time()), "model": req.get("model", "tiny"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": ptoks, "completion_tokens": otoks, "total_tokens": ptoks + otoks},
        }
        self._send(200, json.dumps(out).encode(), "application/json")


if __name__ == "__main__":
    random.seed(7)
    srv = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    srv.serve_forever()
