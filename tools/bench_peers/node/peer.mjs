// One child of the peers bench (tools/bench_peers/node_system.py) driving graphile-worker or pg-boss
// through its own API. Its configuration is one JSON argument; it talks to its Python parent in
// JSON lines on stdout ({"event": "ready" | "progress" | "ids" | "done" | "error", ...}) and reads
// "go" and "producers_done" lines on stdin. It writes the bench's ledger itself, in the format
// qgen.bench.procs writes (one "id [monotonic seconds]" line per job, appended to
// <ledger_dir>/<name>.<kind>); process.hrtime reads CLOCK_MONOTONIC, the clock of Python's
// time.monotonic on Linux, so the parent compares its stamps with its own.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import pg from "pg";
import { Logger, makeWorkerUtils, run, runMigrations } from "graphile-worker";
import PgBoss from "pg-boss";

const config = JSON.parse(process.argv[2]);
const TASK = "bench";
const silent = new Logger(() => () => {});

const say = (event, fields = {}) => process.stdout.write(JSON.stringify({ event, ...fields }) + "\n");
const now = () => Number(process.hrtime.bigint()) / 1e9;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The bench's payload (example 001's filler): job n's is {filler: n right-aligned in 400 'x'}.
const payload = (n) => ({ [config.payload_key]: String(n).padStart(config.payload_width, "x") });
const numberOf = (data) => parseInt(data[config.payload_key].replace(/^x+/, ""), 10);

function ledger(kind) {
  const fd = fs.openSync(path.join(config.ledger_dir, `${config.name}.${kind}`), "a");
  return (ids, stamp) => {
    if (ids.length) {
      const suffix = stamp ? ` ${now().toFixed(3)}\n` : "\n";
      fs.writeSync(fd, ids.map((id) => `${id}${suffix}`).join(""));
    }
  };
}

// stdin: "go" starts the work; "producers_done" ends a mixed run's wait for more jobs.
const signals = { go: null, producersDone: false };
const goPromise = new Promise((resolve) => { signals.go = resolve; });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "go") signals.go();
  if (line === "producers_done") signals.producersDone = true;
});

// ------------------------------------------------------------------------------------------
// graphile-worker: jobs in schema graphile_worker, task "bench", no named queue (its fast path).

const graphile = {
  async install() {
    await runMigrations({ connectionString: config.url, logger: silent });
  },
  async producer() {
    const utils = await makeWorkerUtils({ connectionString: config.url, logger: silent });
    return {
      async enqueue(numbers) {
        if (numbers.length === 1) return [String((await utils.addJob(TASK, payload(numbers[0]))).id)];
        const jobs = await utils.addJobs(numbers.map((n) => ({ identifier: TASK, payload: payload(n) })));
        return jobs.map((job) => String(job.id));
      },
      close: () => utils.release(),
    };
  },
  // Its recommended fast configuration (worker.graphile.org/docs/performance): a local queue that
  // locks `localQueue.size` jobs per fetch (here the measure's batch b, as every system claims b
  // per query) and batched completion and failure (completeJobBatchDelay / failJobBatchDelay 0).
  async consume(processed, completed) {
    const pool = new pg.Pool({ connectionString: config.url, max: config.pool_size });
    pool.on("error", (e) => process.stderr.write(`graphile-worker pool: ${e.message}\n`));
    // The completion is recorded once graphile-worker's own DELETE of the job rows has returned:
    // its job:complete event fires before the batched write, so the pool's query is the only hook.
    pool.on("connect", (client) => {
      const query = client.query.bind(client);
      client.query = (...args) => {
        const spec = args[0];
        const result = query(...args);
        if (spec && typeof spec === "object" && /^delete from \S+\._private_jobs/.test(spec.text || "")
            && result && typeof result.then === "function") {
          const ids = [].concat(spec.values[0]).map(String);
          return result.then((value) => { completed(ids); return value; });
        }
        return result;
      };
    });
    const runner = await run({
      pgPool: pool,
      noHandleSignals: true,
      logger: silent,
      taskList: { [TASK]: async (_payload, helpers) => { processed([String(helpers.job.id)]); } },
      preset: {
        worker: {
          concurrentJobs: config.concurrency,
          localQueue: { size: config.batch },
          completeJobBatchDelay: 0,
          failJobBatchDelay: 0,
          pollInterval: 2000,
        },
      },
    });
    const empty = async () => {
      const { rows } = await pool.query("select not exists (select 1 from graphile_worker._private_jobs) as empty");
      return rows[0].empty;
    };
    await stopWhenDone(empty);
    await runner.stop();
    await pool.end();
  },
  unfinished: "select count(*) as n from graphile_worker._private_jobs",
};

// ------------------------------------------------------------------------------------------
// pg-boss: schema pgboss, queue "bench" (policy standard). Its ids are UUIDs: the ledger names a
// job by its payload's number (distinct per job), which every side of the ledger can read.

const boss = {
  make: () => new PgBoss({ connectionString: config.url, max: config.pool_size }),
  async install() {
    const instance = boss.make();
    instance.on("error", (e) => process.stderr.write(`pg-boss: ${e.message}\n`));
    await instance.start();
    await instance.createQueue(TASK);
    await instance.stop({ graceful: false, wait: true });
  },
  async producer() {
    const instance = boss.make();
    instance.on("error", (e) => process.stderr.write(`pg-boss: ${e.message}\n`));
    await instance.start();
    return {
      async enqueue(numbers) {
        if (numbers.length === 1) {
          await instance.send(TASK, payload(numbers[0]));
        } else {
          await instance.insert(numbers.map((n) => ({ name: TASK, data: payload(n) })));
        }
        return numbers.map(String);
      },
      close: () => instance.stop({ graceful: false, wait: true }),
    };
  },
  // pg-boss's work() sleeps its polling interval (0.5 s at least) after every fetch, a full one
  // too (worker.js), which caps a worker at batchSize jobs per 0.5 s. The bench drives its own
  // fetch(name, {batchSize}) and complete(name, ids) in a loop instead, fetching again at once
  // after a fetch that found jobs and waiting work()'s minimum interval (0.5 s) after an empty one.
  async consume(processed, completed) {
    const instance = boss.make();
    instance.on("error", (e) => process.stderr.write(`pg-boss: ${e.message}\n`));
    await instance.start();
    let idleSince = null;
    for (;;) {
      const jobs = (await instance.fetch(TASK, { batchSize: config.batch })) || [];
      if (jobs.length) {
        idleSince = null;
        processed(jobs.map((job) => String(numberOf(job.data))));
        await instance.complete(TASK, jobs.map((job) => job.id));
        completed(jobs.map((job) => String(numberOf(job.data))));
        continue;
      }
      if (await done(async () => (await instance.getQueueSize(TASK)) === 0)) break;
      await sleep(config.idle_ms);
    }
    await instance.stop({ graceful: false, wait: true });
  },
  unfinished: "select count(*) as n from pgboss.job where state <> 'completed'",
};

const systems = { "graphile-worker": graphile, "pg-boss": boss };

// A drain ends when the queue holds nothing unfinished; a mixed run also waits for its producers.
async function done(empty) {
  if (config.mixed && !signals.producersDone) return false;
  return empty();
}

async function stopWhenDone(empty) {
  while (!(await done(empty))) await sleep(50);
}

async function produce(system) {
  const producer = await system.producer();
  const record = ledger("enqueued");
  say("ready");
  await goPromise;
  const clock = () => performance.now() / 1000;
  const began = clock();
  const deadline = config.seconds == null ? null : began + config.seconds;
  let enqueued = 0, calls = 0, reported = 0;
  while ((config.count == null || enqueued < config.count) && (deadline == null || clock() < deadline)) {
    if (config.rate && began + enqueued / config.rate > clock()) {
      await sleep(1000 * (began + enqueued / config.rate - clock()));
    }
    const size = config.count == null ? config.batch : Math.min(config.batch, config.count - enqueued);
    const numbers = Array.from({ length: size }, (_, i) => config.first + enqueued + i);
    record(await producer.enqueue(numbers), true);
    calls += 1;
    enqueued += size;
    if (enqueued - reported >= 1000) { say("progress", { enqueued: enqueued - reported }); reported = enqueued; }
  }
  await producer.close();
  say("done", { enqueued, calls, progress: enqueued - reported });
}

async function fill(system) {
  const producer = await system.producer();
  const ids = [];
  for (let start = 1; start <= config.rows; start += config.chunk) {
    const numbers = Array.from({ length: Math.min(config.chunk, config.rows + 1 - start) }, (_, i) => start + i);
    ids.push(...(await producer.enqueue(numbers)));
  }
  await producer.close();
  // Thousands of ids: to a file the parent names, not stdout (a pipe, written asynchronously).
  fs.writeFileSync(config.ids_file, ids.join("\n") + "\n");
  say("filled", { count: ids.length });
}

async function consume(system) {
  const claimed = ledger("claimed");
  const record = ledger("completed");
  let pending = 0;
  const completed = (ids) => {
    record(ids, true);
    pending += ids.length;
    if (pending >= 500) { say("progress", { completed: pending }); pending = 0; }
  };
  say("ready");
  await goPromise;
  await system.consume((ids) => claimed(ids, false), completed);
  say("done", { progress: pending });
}

async function unfinished(system) {
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  const { rows } = await client.query(system.unfinished);
  await client.end();
  say("count", { n: Number(rows[0].n) });
}

const roles = { install: (s) => s.install().then(() => say("installed")), produce, fill, consume, unfinished };
try {
  await roles[config.role](systems[config.system]);
  exit(0);
} catch (error) {
  say("error", { message: String(error && error.stack || error) });
  exit(1);
}

// stdout is a pipe, written asynchronously: exit once what was said has been flushed.
function exit(code) {
  process.stdout.write("", () => process.exit(code));
}
