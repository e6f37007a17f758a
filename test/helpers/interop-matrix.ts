// The interop matrix's shape and its Markdown rendering (docs/interop.md). The table itself, and the
// code that fills it, live in test/interop-matrix.test.ts.

export const CASES = ['accept', 'decline', 'cancel', 'url', 'roots'] as const;
export type Case = (typeof CASES)[number];
export const TRANSPORTS = ['stdio', 'http'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export type Status = 'pass' | 'fail' | 'n/a';

/** One pair: parley's host against a server, or parley's toolkit against a client. */
export interface PairInfo {
  id: string;
  side: 'host' | 'toolkit';
  /** The other side, as shown in the table. */
  peer: string;
  /** Revision each transport negotiates (asserted by every case). */
  revision: Record<Transport, string>;
  /** How the other side runs on each transport (shown under the tables). */
  how: Partial<Record<Transport, string>>;
  /** Why a transport, a case, or one transport's case cannot run. Keys: `http`, `url`, `http.url`. */
  na?: Partial<Record<Transport | Case | `${Transport}.${Case}`, string>>;
}

/** One row of the matrix: pair × transport × case; `na` is the reason when the pair cannot support it. */
export interface Row {
  pair: PairInfo;
  transport: Transport;
  case: Case;
  na?: string;
}

export function rowsOf(pairs: PairInfo[]): Row[] {
  return pairs.flatMap((pair) =>
    TRANSPORTS.flatMap((transport) =>
      CASES.map((c) => ({ pair, transport, case: c, na: pair.na?.[transport] ?? pair.na?.[`${transport}.${c}`] ?? pair.na?.[c] })),
    ),
  );
}

export const key = (r: Pick<Row, 'transport' | 'case'> & { pair: { id: string } }) => `${r.pair.id}|${r.transport}|${r.case}`;

const HEADINGS: Record<Case, string> = { accept: 'accept', decline: 'decline', cancel: 'cancel', url: 'URL mode', roots: 'roots' };
const MARK: Record<Exclude<Status, 'n/a'>, string> = { pass: 'pass', fail: '**FAIL**' };

/**
 * Renders the matrix. `status(row)` gives pass/fail for applicable rows; n/a rows show a footnote
 * letter whose reason is listed under the tables (equal reasons share a letter).
 */
export function renderMatrix(rows: Row[], status: (r: Row) => Exclude<Status, 'n/a'>): string {
  const reasons: string[] = [];
  const note = (reason: string) => {
    let i = reasons.indexOf(reason);
    if (i < 0) i = reasons.push(reason) - 1;
    return String.fromCharCode(97 + i);
  };
  const section = (side: 'host' | 'toolkit', title: string, other: string) => {
    const lines = [
      `## ${title}`,
      '',
      `| ${other} | Transport | Revision | ${CASES.map((c) => HEADINGS[c]).join(' | ')} |`,
      `|---|---|---|${CASES.map(() => '---').join('|')}|`,
    ];
    const pairs = [...new Map(rows.filter((r) => r.pair.side === side).map((r) => [r.pair.id, r.pair])).values()];
    for (const pair of pairs) {
      for (const t of TRANSPORTS) {
        const cells = CASES.map((c) => {
          const r = rows.find((x) => x.pair.id === pair.id && x.transport === t && x.case === c)!;
          return r.na ? `n/a (${note(r.na)})` : MARK[status(r)];
        });
        const whole = pair.na?.[t];
        lines.push(`| ${pair.peer} | ${t} | ${whole ? '—' : pair.revision[t]} | ${cells.join(' | ')} |`);
      }
    }
    return lines.join('\n');
  };
  const host = section('host', 'parley host against servers', 'Server');
  const toolkit = section('toolkit', 'parley toolkit (createParleyServer + serve) against clients', 'Client');
  const counted = rows.filter((r) => !r.na);
  const passed = counted.filter((r) => status(r) === 'pass').length;
  return [
    '# Interop matrix',
    '',
    '<!-- Generated: PARLEY_WRITE_MATRIX=1 node scripts/run-tests.mjs interop-matrix. Do not edit by hand;',
    '     test/interop-matrix.test.ts fails when this file and the table in it disagree. -->',
    '',
    'Every cell is one test in `test/interop-matrix.test.ts` (one row of its table per pair × transport ×',
    'case): real peers over stdio (child processes) and Streamable HTTP on 127.0.0.1, the host with a',
    'ScriptedPresenter answering accept, decline or cancel, URL-mode consent, and roots. The revision is the',
    'one the pair negotiates; every case asserts it.',
    '',
    `${passed} of ${counted.length} applicable cells pass; ${rows.length - counted.length} are not applicable.`,
    '',
    host,
    '',
    toolkit,
    '',
    '## Not applicable',
    '',
    ...reasons.map((r, i) => `- (${String.fromCharCode(97 + i)}) ${r}`),
    '',
    '## How each peer runs',
    '',
    '| Pair | stdio | http |',
    '|---|---|---|',
    ...[...new Map(rows.map((r) => [r.pair.id, r.pair])).values()].map(
      (p) => `| ${p.peer} | ${TRANSPORTS.map((t) => p.how[t] ?? '—').join(' | ')} |`,
    ),
    '',
  ].join('\n');
}
