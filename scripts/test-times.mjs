// A node:test reporter that prints, when the run ends, the test files that took longest: the sum of
// each file's top-level test durations (hooks and module loading not included), in seconds. It keeps
// CI's time budget visible in the tail of the log. Used by scripts/run-tests.mjs beside TAP.
const SHOWN = 15;

export default async function* testTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.nesting !== 0 || !event.data.file) continue;
    byFile.set(event.data.file, (byFile.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  yield `# test-times: ${rows.length} files, ${(total / 1000).toFixed(0)} s of tests; the slowest:\n`;
  for (const [file, ms] of rows.slice(0, SHOWN)) {
    yield `#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.slice(file.lastIndexOf('/test/') + 1)}\n`;
  }
}
