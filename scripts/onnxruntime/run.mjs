// Runs an ONNX model in ONNX Runtime (onnxruntime-node, CPU execution provider, its default settings) on an input
// tensor from a file, for Argus's ONNX export test and `argus bench --vs onnxruntime`.
//
//   node run.mjs MODEL.onnx INPUT.f32 N C H W OUTDIR [RUNS] [WARMUP]
//
// INPUT.f32: N*C*H*W little-endian float32 values (NCHW). Writes OUTDIR/<output name>.f32 for every graph output
// (after the last run; an int64 output, e.g. NonMaxSuppression's, converted to float32) and prints one line per
// output, `output NAME D1xD2x...` (a dimension of 0 prints as 0), then `ms T1 T2 ...` (each timed
// run's wall time) and `threads N` (the processors ONNX Runtime may use).
// RUNS (default 1) timed runs follow WARMUP (default 0) untimed ones.
import * as ort from 'onnxruntime-node';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';

const [model, inputFile, n, c, h, w, outDir, runsArg, warmupArg] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node run.mjs MODEL.onnx INPUT.f32 N C H W OUTDIR [RUNS] [WARMUP]');
  process.exit(2);
}
const dims = [n, c, h, w].map(Number);
const bytes = readFileSync(inputFile);
const expected = dims.reduce((a, b) => a * b, 1);
if (bytes.length !== expected * 4) {
  console.error(`${inputFile}: ${bytes.length} bytes, expected ${expected * 4} (${dims.join('x')} float32)`);
  process.exit(2);
}
const data = new Float32Array(bytes.buffer, bytes.byteOffset, expected);
const session = await ort.InferenceSession.create(model);
const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
const runs = Number(runsArg ?? 1), warmup = Number(warmupArg ?? 0);
for (let i = 0; i < warmup; i++) await session.run(feeds);
const ms = [];
let results;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  results = await session.run(feeds);
  ms.push(performance.now() - t0);
}
mkdirSync(outDir, { recursive: true });
for (const name of session.outputNames) {
  const t = results[name];
  const values = t.type === 'int64' ? Float32Array.from(t.data, Number) : t.data;
  writeFileSync(join(outDir, `${name}.f32`), Buffer.from(values.buffer, values.byteOffset, values.byteLength));
  console.log(`output ${name} ${t.dims.join('x')}`);
}
console.log(`ms ${ms.map((t) => t.toFixed(3)).join(' ')}`);
console.log(`threads ${availableParallelism()}`);
