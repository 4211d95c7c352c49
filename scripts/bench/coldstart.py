#!/usr/bin/env python3
"""Cold start of the aiperf runner: time from exec to the first request the
server receives, and the process's RSS at that moment.

A tiny listener stands in for the server: it accepts the first connection,
reads the request head, notes the time, and the runner is then killed, so
the measurement is exec -> first request bytes, nothing after. Usage:

  coldstart.py BIN RUNS [extra profile flags...]

prints one line: coldstart_first_request_ms p50 .. p90 .. min .. rss_mib p50 ..
(anon ..) binary_mib .. The first run only warms the page cache.
"""
import os, signal, socket, statistics, subprocess, sys, time

import tempfile
binary, runs, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
tmp = tempfile.mkdtemp(prefix="aiperf-coldstart-")
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(64)
port = ls.getsockname()[1]
ls.settimeout(10)
args = [binary, "profile", "--model", "mock-model", "--url", "http://127.0.0.1:%d" % port,
        "--ui-type", "none", "--streaming", "--concurrency", "1", "--request-count", "10",
        "--artifact-dir", os.path.join(tmp, "run")] + extra
ms, rss, anon = [], [], []
devnull = open(os.devnull, "w")
for i in range(runs + 1):  # the first run warms the page cache and is dropped
    t0 = time.perf_counter()
    p = subprocess.Popen(args, stdout=devnull, stderr=devnull)
    try:
        conn, _ = ls.accept()
    except socket.timeout:
        p.kill(); p.wait()
        sys.exit("no request within 10 s: %s" % " ".join(args))
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(65536)
        if not chunk:
            break
        head += chunk
    t1 = time.perf_counter()
    kb = {}
    try:
        for line in open("/proc/%d/status" % p.pid):
            if line.startswith(("VmRSS:", "RssAnon:", "RssFile:")):
                kb[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    p.send_signal(signal.SIGKILL); p.wait(); conn.close()
    if i:
        ms.append((t1 - t0) * 1000)
        rss.append(kb.get("VmRSS", 0) / 1024); anon.append(kb.get("RssAnon", 0) / 1024)
ms.sort()
# RSS counts the binary's pages mapped from the page cache (shared, often as
# huge pages); RssAnon is the process's own memory.
print("coldstart_first_request_ms p50 %.2f p90 %.2f min %.2f  rss_mib p50 %.1f (anon %.1f)  binary_mib %.1f  runs=%d"
      % (statistics.median(ms), ms[max(0, int(len(ms) * 0.9) - 1)], ms[0],
         statistics.median(rss), statistics.median(anon), os.path.getsize(binary) / 2**20, runs))
