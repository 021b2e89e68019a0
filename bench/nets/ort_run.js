// ONNX Runtime side of bench/nets/run.py: load MODEL, run it on IN.npy
// (float32, C order), write the output to OUT.npy when asked, and time
// ITERS runs after WARMUP: one JSON line {"median_ms", "min_ms", "max_ms",
// "rss_mb", "create_ms" (the session's creation)} on stdout.
//   node ort_run.js MODEL IN.npy OUT.npy|- ITERS WARMUP THREADS
const fs = require('fs');
const ort = require('onnxruntime-node');

function readNpy(path) {
  const b = fs.readFileSync(path);
  if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(path + ': not a .npy file');
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  if (!header.includes("'<f4'") || !header.includes("'fortran_order': False"))
    throw new Error(path + ': float32 in C order only');
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',')
    .map((s) => s.trim()).filter((s) => s.length).map(Number);
  const off = start + hlen;
  const data = new Float32Array(b.buffer.slice(b.byteOffset + off, b.byteOffset + b.length));
  return {shape, data};
}

function writeNpy(path, shape, data) {
  const sh = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': ${sh}, }`;
  const pad = (64 - ((10 + h.length + 1) % 64)) % 64;
  h = h + ' '.repeat(pad) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(h.length, 8);
  fs.writeFileSync(path, Buffer.concat([pre, Buffer.from(h, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

(async () => {
  const [model, inPath, outPath, iters, warmup, threads] = process.argv.slice(2);
  const t0 = process.hrtime.bigint(); // session creation: ORT's load + compile
  const s = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1,
    graphOptimizationLevel: 'all', executionMode: 'sequential'});
  const createMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const x = readNpy(inPath);
  const feeds = {[s.inputNames[0]]: new ort.Tensor('float32', x.data, x.shape)};
  let out;
  for (let k = 0; k < Number(warmup); k++) out = await s.run(feeds);
  const times = [];
  for (let k = 0; k < Number(iters); k++) {
    const t = process.hrtime.bigint();
    out = await s.run(feeds);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  if (!out) out = await s.run(feeds);
  if (outPath !== '-') {
    const y = out[s.outputNames[0]];
    writeNpy(outPath, y.dims.map(Number), y.data);
  }
  times.sort((a, b) => a - b);
  const n = times.length;
  const med = n ? (n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2) : 0;
  console.log(JSON.stringify({median_ms: med, min_ms: times[0], max_ms: times[n - 1],
    rss_mb: process.memoryUsage().rss / 1048576, create_ms: createMs}));
})().catch((e) => {
  console.error('ort_run: ' + e.message);
  process.exit(1);
});
