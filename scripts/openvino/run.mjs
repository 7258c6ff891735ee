// Runs an ONNX model in OpenVINO (openvino-node, CPU plugin) on an input tensor from a file, for Argus's OpenVINO
// test and `argus bench --vs openvino`. The same protocol as scripts/onnxruntime/run.mjs, plus the precision:
//
//   node run.mjs MODEL.onnx INPUT.f32 N C H W OUTDIR [RUNS] [WARMUP] [PRECISION]
//
// INPUT.f32: N*C*H*W little-endian float32 values (NCHW). Writes OUTDIR/<output name>.f32 for every graph output
// (after the last run; an int64 output, e.g. NonMaxSuppression's, converted to float32) and prints one line per
// output, `output NAME D1xD2x...`, then `ms T1 T2 ...` (each timed infer call's wall time) and `threads N` (the
// threads OpenVINO's CPU plugin runs the request on). RUNS (default 1) timed runs follow WARMUP (default 0) untimed
// ones. PRECISION: f32 (default; INFERENCE_PRECISION_HINT f32, FP32 throughout, as our FP32 and ONNX Runtime) or best
// (the CPU plugin's own default: bf16 where the CPU has AVX512_BF16 or AMX, else f32). It prints `openvino VERSION`,
// `device NAME` and `precision P` as the compiled model reports them, so a log says what actually ran.
import openvino from 'openvino-node';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ov = openvino.addon;
const [model, inputFile, n, c, h, w, outDir, runsArg, warmupArg, precisionArg] = process.argv.slice(2);
const precision = precisionArg ?? 'f32';
if (!outDir || !['f32', 'best'].includes(precision)) {
  console.error('usage: node run.mjs MODEL.onnx INPUT.f32 N C H W OUTDIR [RUNS] [WARMUP] [f32|best]');
  process.exit(2);
}
const dims = [n, c, h, w].map(Number);
const bytes = readFileSync(inputFile);
const expected = dims.reduce((a, b) => a * b, 1);
if (bytes.length !== expected * 4) {
  console.error(`${inputFile}: ${bytes.length} bytes, expected ${expected * 4} (${dims.join('x')} float32)`);
  process.exit(2);
}
// A copy: OpenVINO's Tensor wraps the array's memory, and Node's Buffer may be a view into a shared pool.
const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + expected * 4));

const core = new ov.Core();
const network = await core.readModel(model);
// The batch of this run fixed in the model (an exported model's batch is symbolic): compiled for static shapes, as
// ONNX Runtime and we run it.
network.reshape(`[${dims.join(',')}]`);
// LATENCY: one stream over all cores for one request at a time, which is how the bench and our forward run (one
// synchronous batch after another). THROUGHPUT would split the cores into streams that only requests in parallel
// fill, leaving a single request on a fraction of the cores.
/** @type {Record<string, string>} */
const config = { PERFORMANCE_HINT: 'LATENCY' };
if (precision === 'f32') config.INFERENCE_PRECISION_HINT = 'f32';
const compiled = await core.compileModel(network, 'CPU', config);
const request = compiled.createInferRequest();
const feeds = { [compiled.inputs[0].anyName]: new ov.Tensor(ov.element.f32, dims, data) };

const runs = Number(runsArg ?? 1), warmup = Number(warmupArg ?? 0);
for (let i = 0; i < warmup; i++) request.infer(feeds);
const ms = [];
let results;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  results = request.infer(feeds);
  ms.push(performance.now() - t0);
}
mkdirSync(outDir, { recursive: true });
for (const output of compiled.outputs) {
  const name = output.anyName;
  const t = results[name];
  const raw = t.data;   // a copy of the tensor's memory
  const values = raw instanceof Float32Array ? raw : Float32Array.from(raw, Number);
  writeFileSync(join(outDir, `${name}.f32`), Buffer.from(values.buffer, values.byteOffset, values.byteLength));
  console.log(`output ${name} ${t.getShape().join('x')}`);
}
console.log(`ms ${ms.map((t) => t.toFixed(3)).join(' ')}`);
console.log(`threads ${compiled.getProperty('INFERENCE_NUM_THREADS')}`);
console.log(`openvino ${ov.getOpenvinoVersion().buildNumber}`);
console.log(`device ${core.getProperty('CPU', 'FULL_DEVICE_NAME')}`);
console.log(`precision ${compiled.getProperty('INFERENCE_PRECISION_HINT')} (asked ${precision})`);
