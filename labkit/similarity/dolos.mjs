// The class's similarity check (labkit/kit/similarity.py runs it): Dolos over the files named
// on the command line, C++ tokens, with the file after --base (the starter's regions) as the
// template whose fingerprints count for no pair. Prints one JSON object: every pair that shares
// a fingerprint, its similarity, and the line ranges (0-based) of its matching fragments.
import { Dolos } from "@dodona/dolos-lib";

const args = process.argv.slice(2);
const files = [];
let base;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--base") base = args[++i];
  else files.push(args[i]);
}
const dolos = new Dolos({ language: "cpp" });
const report = await dolos.analyzePaths(files, base);
const rows = (s) => [s.startRow, s.endRow];
const pairs = report.allPairs().map((p) => ({
  left: p.leftFile.path,
  right: p.rightFile.path,
  similarity: p.similarity,
  longest: p.longest,
  fragments: p.buildFragments().map((f) => ({ left: rows(f.leftSelection), right: rows(f.rightSelection) })),
}));
process.stdout.write(JSON.stringify({ pairs, warnings: report.warnings }) + "\n");
