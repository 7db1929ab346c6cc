"""Used by scripts/bench_ab.sh. Simultaneous A/B: this checkout's client drains its own schema with 4 workers; each worker gets
ready (imports, connects), marks it in DIR, and waits for DIR/go, which holds the start instant
(written once the workers of both sides are ready), then works `seconds`."""
import multiprocessing as mp
import os
import sys
import time
URL = os.environ.get("QGEN_AB_URL", "postgresql://postgres@127.0.0.1:5432/test")

def work(spec_path, mode, batch, folder, name, seconds, out):
    from qgen.spec.load import load_spec
    from qgen.client import QueueClient
    spec = load_spec(spec_path)
    c = QueueClient(URL, spec, "testq", owner="ab")
    open(os.path.join(folder, f"ready-{name}"), "w").close()
    go = os.path.join(folder, "go")
    while not os.path.exists(go) or not open(go).read().strip():
        time.sleep(0.002)
    start_at = float(open(go).read())
    while time.time() < start_at:
        time.sleep(0.001)
    end = start_at + seconds
    tok, rows = None, 0
    payload = {"filler": "x" * 400}
    while time.time() < end:
        if mode == "lease":
            jobs = c.dequeue(batch_size=batch, complete=tok)
            tok = jobs[0].lease_token if jobs else None
            rows += len(jobs)
        elif mode == "delete":
            with c.transaction():
                rows += len(c.dequeue(batch_size=batch))
        else:  # enqueue
            if batch == 1:
                c.enqueue(**payload)
            else:
                c.enqueue_many([payload] * batch)
            rows += batch
    if tok is not None:
        c.complete(tok)
    out.put(rows)

if __name__ == "__main__":
    spec_path, mode, batch, folder, side, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], float(sys.argv[6])
    mp.set_start_method("spawn")
    q = mp.Queue()
    ps = [mp.Process(target=work, args=(spec_path, mode, batch, folder, f"{side}{i}", seconds, q)) for i in range(4)]
    for p in ps:
        p.start()
    total = sum(q.get() for _ in ps)
    for p in ps:
        p.join()
    print(f"{total / seconds:.0f}")
