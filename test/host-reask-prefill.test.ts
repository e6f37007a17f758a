// In-call previous-answer prefill, end to end: a real SDK v2 server refuses an answer (a zod .refine())
// and asks the same form again in the same tool call; parley's runtime and broker (sensitive fields
// "ask") bring the person's last answer back as the second form's prefill, never its sensitive field,
// and two overlapping calls of the same tool never see each other's answers. On 2025-06-18 and 2025-11-25
// (pushed by the SDK's legacy shim) and 2026-07-28 (input_required rounds parley drives), over stdio and
// HTTP. With two calls in flight a pushed request is known to be its call's over Streamable HTTP (it
// arrives on that call's POST stream); over stdio nothing on the wire says which call it is for.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker, ServerManager } from '../src/host/index.js';
import type { InputRequestView, Presenter, PresenterAnswer } from '../src/host/index.js';
import type { ServerDef } from '../src/host/config/types.js';
import { serve } from '../src/server/index.js';
import { clientInfo, fastStop, fixture, text } from './fixtures/servers-host/helpers.js';
// @ts-expect-error an .mjs test peer without types
import { reaskServer } from './fixtures/servers-host/v2-reask.mjs';

type Step = (p: InputRequestView) => PresenterAnswer | Promise<PresenterAnswer>;

/** A scripted person: `step` answers each prompt; every prompt is recorded. */
class ScriptedPerson implements Presenter {
  readonly interactive = true;
  readonly prompts: InputRequestView[] = [];
  constructor(private readonly step: Step) {}
  present(prompt: InputRequestView): Promise<PresenterAnswer> {
    this.prompts.push(prompt);
    return Promise.resolve(this.step(prompt));
  }
  notify(): void {}
}

/** Waits until `p` has `n` prompts (bound 30 s). */
async function prompted(p: ScriptedPerson, n: number): Promise<void> {
  for (let i = 0; i < 300 && p.prompts.length < n; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(p.prompts.length >= n, `expected ${n} prompts, got ${p.prompts.length}`);
}

const accept = (content: Record<string, unknown>): PresenterAnswer => ({ action: 'accept', content });
const wrong = (tag: string) => ({
  from: `2025-0${tag === 'y' ? 9 : 8}-01`,
  to: '2025-01-01',
  note: `note of ${tag}`,
  password: `pw-${tag}`,
});
const right = (tag: string) => ({ from: '2025-01-01', to: '2025-03-01', note: `note of ${tag}`, password: `pw-${tag}` });
const withoutPassword = ({ password: _, ...rest }: Record<string, unknown>) => rest;
const forTag = (p: InputRequestView) => /Range for (\w+)\?/.exec(p.message)?.[1] ?? '?';

const ERAS = [
  { era: 'legacy', revision: '2025-06-18' },
  { era: 'legacy', revision: '2025-11-25' },
  { era: 'modern', revision: '2026-07-28' },
] as const;
// A legacy verdict makes the runtime open with plain initialize (no server/discover probe): 2025-11-25.
const legacyVerdicts = {
  getEraVerdict: async (defHash: string) => ({ defHash, era: 'legacy' as const, verifiedAt: Date.now() }),
  putEraVerdict: async () => {},
  deleteEraVerdict: async () => true,
};

async function withServer(
  transport: 'stdio' | 'http',
  era: 'legacy' | 'modern',
  revision: string,
  person: ScriptedPerson,
  fn: (m: ServerManager) => Promise<void>,
): Promise<void> {
  const only = revision === '2025-06-18' ? { revision } : {};
  const http = transport === 'http' ? await serve(() => reaskServer(only), { http: { port: 0 } }) : undefined;
  const def: ServerDef = http
    ? ({ name: 'reask', type: 'http', url: http.url, headers: {}, origin: { file: '<test>', pointer: '/servers/reask' } } as ServerDef)
    : fixture('reask', 'v2-reask.mjs', only.revision ? ['--revision', only.revision] : []);
  const broker = new ElicitationBroker({ presenter: person, policy: { sensitiveFields: 'ask' } });
  const m = new ServerManager(
    { reask: def },
    {
      handlers: { elicit: broker.elicit, listRoots: async () => ({ roots: [] }) },
      clientInfo,
      stop: fastStop,
      ...(era === 'legacy' ? { eraVerdicts: legacyVerdicts } : {}),
    },
  );
  try {
    await fn(m);
  } finally {
    await m.stopAll();
    broker.close();
    await http?.close();
  }
}

for (const transport of ['stdio', 'http'] as const) {
  for (const { era, revision } of ERAS) {
    describe(`${revision} over ${transport}`, () => {
      it('the re-asked form is prefilled with the refused answer, without its sensitive or masked field', async () => {
        // The person masks `note` (treated like a secret); `password` is detected as one.
        const person = new ScriptedPerson((p) =>
          /Please correct/.test(p.message) ? accept(right('a')) : { ...accept(wrong('a')), masked: ['note'] },
        );
        await withServer(transport, era, revision, person, async (m) => {
          const result = text(await m.callTool('reask', 'range', { tag: 'a' }));
          assert.equal(m.info('reask')?.negotiatedRevision, revision);
          assert.equal(result, 'a: 2025-01-01..2025-03-01 note=note of a password=given');
          assert.equal(person.prompts.length, 2);
          assert.deepEqual(person.prompts[0].prefill, {}, 'the first form starts empty');
          assert.match(person.prompts[1].message, /^Range for a\? Please correct: to is before from$/);
          assert.deepEqual(person.prompts[1].sensitiveFields, ['password']);
          const { from, to } = wrong('a');
          assert.deepEqual(person.prompts[1].prefill, { from, to }, 'the second form: the last answer, no password, no masked note');
          assert.deepEqual(person.prompts[1].prefillSources, { from: 'previous answer', to: 'previous answer' });
        });
      });

      it("two overlapping calls answered in crossed order never see each other's previous answer", async () => {
        // Both calls ask. `x` is answered (wrongly) first, but the server takes 2.5 s to refuse it; `y` is
        // answered (wrongly) next, re-asked at once and finished; only then is `x` re-asked. Each re-ask
        // may carry only its own call's answer (2026-07-28 and 2025 eras over HTTP: it does; 2025 eras over
        // stdio: a pushed request cannot be told apart from the other call's, so it gets none).
        const waiting = new Map<string, (a: PresenterAnswer) => void>();
        const person = new ScriptedPerson((p) =>
          /Please correct/.test(p.message)
            ? accept(right(forTag(p)))
            : new Promise<PresenterAnswer>((resolve) => waiting.set(forTag(p), resolve)),
        );
        await withServer(transport, era, revision, person, async (m) => {
          const x = m.callTool('reask', 'range', { tag: 'x', delayMs: 2500 });
          const y = m.callTool('reask', 'range', { tag: 'y' });
          await prompted(person, 2);
          waiting.get('x')?.(accept(wrong('x')));
          waiting.get('y')?.(accept(wrong('y')));
          assert.equal(text(await y), 'y: 2025-01-01..2025-03-01 note=note of y password=given');
          assert.equal(text(await x), 'x: 2025-01-01..2025-03-01 note=note of x password=given');
          const reasks = person.prompts.filter((p) => /Please correct/.test(p.message));
          assert.deepEqual(reasks.map(forTag), ['y', 'x'], 'crossed: x was answered first and re-asked last');
          for (const p of reasks) {
            const own = withoutPassword(wrong(forTag(p)));
            const other = withoutPassword(wrong(forTag(p) === 'x' ? 'y' : 'x'));
            const prefill = p.prefill ?? {};
            assert.ok(
              !Object.entries(prefill).some(([k, v]) => v === other[k] && v !== own[k]),
              `${forTag(p)} saw the other call's answer: ${JSON.stringify(prefill)}`,
            );
            assert.ok(!('password' in prefill));
            if (era === 'modern' || transport === 'http') {
              assert.deepEqual(prefill, own, `${forTag(p)}: its own previous answer`);
              assert.ok(p.call?.callId, `${forTag(p)}: attributed to its own call`);
            } else assert.deepEqual(prefill, {}, `${forTag(p)}: stdio cannot tell the calls apart`);
          }
        });
      });
    });
  }
}
