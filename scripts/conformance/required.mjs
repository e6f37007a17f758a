// Per-revision tally of REQUIRED scenarios for `npm run conformance` (docs/conformance.md "Required
// scenarios"). The required sets come from the 0.2 suite itself (`list --requirements <revision>`, frozen at
// each revision's release: 2025-11-25 and 2026-07-28); 2025-06-18 has no frozen set, so its set is every
// scenario tagged 2025-06-18 in `list` (extension, pending and added-after-release ones excluded).
// A scenario passes when it produced results, at least one check succeeded and none failed. A scenario the
// runner did not run (a baseline client entry, or a --only/--line run) counts as not passing.

const parse = (stdout) => {
  const out = { server: [], client: [] };
  let side;
  for (const line of stdout.split('\n')) {
    if (/^Server scenarios/.test(line)) side = 'server';
    else if (/^Client scenarios/.test(line)) side = 'client';
    else if (/^\S/.test(line)) side = undefined; // "Run and reported, but never scored:" and the like
    const m = /^\s+- (\S+)(?: \[([^\]]*)\])?$/.exec(line);
    if (m && side) out[side].push({ name: m[1], tags: (m[2] ?? '').split(',').filter(Boolean) });
  }
  return out;
};

/**
 * The required scenarios per revision: {revision → {server: string[], client: string[]}}.
 * `cli(argv)` runs the 0.2 suite CLI and resolves {code, stdout}.
 */
export async function requiredSets(cli) {
  const sets = {};
  for (const rev of ['2025-11-25', '2026-07-28']) {
    const s = parse((await cli(['list', '--server', '--requirements', rev])).stdout);
    const c = parse((await cli(['list', '--client', '--requirements', rev])).stdout);
    sets[rev] = { server: s.server.map((x) => x.name), client: c.client.map((x) => x.name) };
  }
  // 2025-06-18: tagged scenarios, minus what the 2025-11-25 set calls unscored (checked by name).
  const all = { ...parse((await cli(['list', '--server'])).stdout), client: parse((await cli(['list', '--client'])).stdout).client };
  const unscored = new Set(['server-session-lifecycle', 'server-sse-polling', 'json-schema-2020-12', 'json-schema-2020-12-preservation']);
  sets['2025-06-18'] = {
    server: all.server.filter((x) => x.tags.includes('2025-06-18') && !unscored.has(x.name)).map((x) => x.name),
    client: all.client.filter((x) => x.tags.includes('2025-06-18') && !unscored.has(x.name)).map((x) => x.name),
  };
  return sets;
}

/**
 * Lines like `required 2026-07-28: 60/69 scenarios pass (server 37/37, client 23/32); not passing: …`.
 * `results` are the runner's {line, side, name, checks, problem?}. Which results speak for a revision:
 * 2026-07-28 → the 0.2 runs; 2025-11-25 → the 0.2 `@2025-11-25` server run, else 0.1.16, and 0.1.16
 * clients; 2025-06-18 → 0.1.16.
 */
export function requiredSummary(sets, results) {
  const find = (rev, side, name) => {
    const by = (line, n) => results.find((r) => r.line === line && r.side === side && r.name === n);
    if (rev === '2026-07-28') return by('0.2', name);
    if (rev === '2025-11-25') return (side === 'server' ? by('0.2', `${name} @2025-11-25`) : undefined) ?? by('0.1', name);
    return by('0.1', name);
  };
  const ok = (r) => !!r && !r.problem && r.checks.some((c) => c.status === 'SUCCESS') && !r.checks.some((c) => c.status === 'FAILURE');
  const lines = [];
  for (const rev of ['2025-06-18', '2025-11-25', '2026-07-28']) {
    const set = sets[rev];
    if (!set) continue;
    const tally = {};
    const failing = [];
    const notRun = [];
    for (const side of ['server', 'client']) {
      const names = set[side];
      const pass = names.filter((n) => ok(find(rev, side, n)));
      tally[side] = `${pass.length}/${names.length}`;
      for (const n of names) if (!pass.includes(n)) (find(rev, side, n) ? failing : notRun).push(`${side} ${n}`);
    }
    const total = set.server.length + set.client.length;
    // Names of scenarios not run are listed up to 10 (a --only/--line run leaves out whole sides).
    const skipped = notRun.length > 10 ? `${notRun.length} (${notRun.slice(0, 3).join(', ')}, …)` : notRun.join(', ');
    lines.push(
      `required ${rev}: ${total - failing.length - notRun.length}/${total} scenarios pass (server ${tally.server}, client ${tally.client})${failing.length ? `; failing: ${failing.join(', ')}` : ''}${notRun.length ? `; not run: ${skipped}` : ''}`,
    );
  }
  return lines;
}
