// Reads a Parquet file kdissect wrote (read --format parquet -w FILE) with
// DuckDB and prints, as one JSON object, the counts and sums the Go test
// (cmd/kdissect/parquet_duckdb_test.go) holds against the JSON Lines of the
// same capture. Usage: node summary.mjs FILE.parquet
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2];
if (!file) {
  console.error('usage: node summary.mjs FILE.parquet');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const src = `read_parquet('${file.replaceAll("'", "''")}')`;

async function rows(sql) {
  const reader = await con.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

const out = {};
const [totals] = await rows(`select count(*) as exchanges, sum(records) as records,
  sum(latency_us) as latency_us_sum, count(latency_us) as with_latency,
  sum(len(notes)) as notes, sum(coalesce(request_size, 0)) as request_bytes,
  sum(coalesce(response_size, 0)) as response_bytes,
  min(epoch_us(ts)) as first_ts_us, max(epoch_us(ts)) as last_ts_us,
  count(request) as with_request, count(response) as with_response from ${src}`);
Object.assign(out, totals);
out.errors = Object.fromEntries((await rows(`select e.name as name, count(*) as n
  from (select unnest(errors) as e from ${src}) group by 1 order by 1`)).map(r => [r.name, Number(r.n)]));
out.apis = Object.fromEntries((await rows(`select coalesce(api, '') as api, count(*) as n
  from ${src} group by 1 order by 1`)).map(r => [r.api, Number(r.n)]));
out.topic_partitions = Object.fromEntries((await rows(`select t.topic as topic, sum(len(t.partitions)) as n
  from (select unnest(topics) as t from ${src}) group by 1 order by 1`))
  .map(r => [r.topic ?? '', Number(r.n)]));
// The bodies are JSON text: DuckDB's json functions read them.
const [acks] = await rows(`select count(*) as produce, sum((request->>'$.Acks')::bigint) as acks_sum
  from ${src} where api = 'Produce' and request is not null`);
out.produce = Number(acks.produce);
out.produce_acks_sum = acks.acks_sum == null ? null : Number(acks.acks_sum);
out.ts_type = (await rows(`select typeof(ts) as t from ${src} limit 1`))[0]?.t ?? null;
for (const k of ['exchanges', 'records', 'latency_us_sum', 'with_latency', 'notes', 'request_bytes',
  'response_bytes', 'with_request', 'with_response', 'first_ts_us', 'last_ts_us']) {
  out[k] = out[k] == null ? 0 : Number(out[k]);
}
console.log(JSON.stringify(out));
