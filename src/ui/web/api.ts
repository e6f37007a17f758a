/**
 * The console's JSON API (mounted under `/api`): servers, tools, roots, presets, audit, prompts.
 * Every route is behind the guard of `server.ts`. Errors are `{error, issues?}` with a status:
 * 400 bad request, 404 unknown prompt, 422 invalid answer, 500 host failure.
 * @module
 */
import { Hono, type Context } from 'hono';
import { HostApiError, type HostApi } from './hostApi.js';
import type { WebPresenter } from './presenter.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

async function body(c: Context): Promise<Record<string, unknown>> {
  try {
    const b: unknown = await c.req.json();
    if (isRecord(b)) return b;
  } catch {
    // fall through
  }
  throw new HostApiError('The request body must be a JSON object.');
}

/** Runs a host call and maps its errors to 400/500 JSON answers. */
async function run(c: Context, fn: () => unknown): Promise<Response> {
  try {
    const out = await fn();
    return c.json(out === undefined ? { ok: true } : out);
  } catch (e) {
    const status = e instanceof HostApiError ? 400 : 500;
    return c.json({ error: e instanceof Error ? e.message : String(e) }, status);
  }
}

/** Builds the `/api` routes over `host` and (optionally) `presenter`. */
export function apiRoutes(host: HostApi, presenter: WebPresenter | undefined): Hono {
  const api = new Hono();

  api.get('/servers', (c) => run(c, () => host.listServers()));
  api.post('/servers/:name/restart', (c) => run(c, () => host.restartServer(c.req.param('name'))));

  api.get('/tools', (c) => run(c, () => host.listTools()));
  api.post('/tools/call', (c) =>
    run(c, async () => {
      const b = await body(c);
      const server = str(b.server);
      const tool = str(b.tool);
      if (!server || !tool) throw new HostApiError('Give "server" and "tool" (strings) and "arguments" (an object).');
      const args = b.arguments ?? {};
      if (!isRecord(args)) throw new HostApiError('"arguments" must be a JSON object.');
      return host.callTool(server, tool, args);
    }),
  );

  api.get('/roots', (c) => run(c, () => host.listRoots()));
  api.post('/roots', (c) =>
    run(c, async () => {
      const b = await body(c);
      const uri = str(b.uri);
      if (!uri) throw new HostApiError('Give "uri", e.g. "file:///home/me/project".');
      const lifetime = b.lifetime === 'app' || b.lifetime === 'session' ? b.lifetime : undefined;
      if (b.lifetime !== undefined && lifetime === undefined) throw new HostApiError('"lifetime" must be "app" or "session".');
      return host.addRoot({ uri, ...(str(b.name) ? { name: str(b.name) } : {}), ...(lifetime ? { lifetime } : {}) });
    }),
  );
  api.post('/roots/remove', (c) =>
    run(c, async () => {
      const uri = str((await body(c)).uri);
      if (!uri) throw new HostApiError('Give "uri" of the root to remove.');
      return { removed: await host.removeRoot(uri) };
    }),
  );

  api.get('/presets', (c) => run(c, () => host.listPresets()));
  api.post('/presets', (c) =>
    run(c, async () => {
      const name = str((await body(c)).name);
      if (!name) throw new HostApiError('Give the preset a "name".');
      await host.savePreset(name);
    }),
  );
  // Open forms take the loaded preset's answers (`forms`: what each one took, or why not).
  api.post('/presets/:name/load', (c) =>
    run(c, async () => {
      const name = c.req.param('name');
      const loaded = await host.loadPreset(name);
      return { ok: true, forms: presenter ? presenter.fillFromPreset(name, loaded.answers) : [] };
    }),
  );
  api.post('/presets/unload', (c) => run(c, () => host.unloadPreset()));
  api.get('/presets/export', async (c) => {
    try {
      const doc = await host.exportPresets();
      return c.body(doc, 200, {
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': 'attachment; filename="parley-presets.json"',
      });
    } catch (e) {
      return c.json({ error: e instanceof Error ? e.message : String(e) }, 500);
    }
  });

  api.get('/answers', (c) => run(c, () => host.listAnswers()));
  api.post('/answers/mode', (c) =>
    run(c, async () => {
      const b = await body(c);
      const server = str(b.server);
      const schemaHash = str(b.schemaHash);
      if (!server || !schemaHash || typeof b.auto !== 'boolean')
        throw new HostApiError(
          'Give "server", "schemaHash" (strings) and "auto" (true: answer automatically next time; false: prefill only).',
        );
      await host.setAnswerMode(server, schemaHash, b.auto);
    }),
  );
  api.post('/answers/forget', (c) =>
    run(c, async () => {
      const b = await body(c);
      const server = str(b.server);
      const schemaHash = str(b.schemaHash);
      if (!server || !schemaHash) throw new HostApiError('Give "server" and "schemaHash" of the remembered answer to forget.');
      return { forgotten: await host.forgetAnswer(server, schemaHash) };
    }),
  );

  api.get('/audit', (c) =>
    run(c, () => {
      const limit = Number(c.req.query('limit'));
      return host.queryAudit({
        ...(str(c.req.query('server')) ? { server: c.req.query('server') } : {}),
        ...(str(c.req.query('kind')) ? { kind: c.req.query('kind') } : {}),
        ...(str(c.req.query('action')) ? { action: c.req.query('action') } : {}),
        ...(Number.isInteger(limit) && limit > 0 ? { limit: Math.min(limit, 1000) } : {}),
      });
    }),
  );

  api.get('/prompts', (c) => c.json(presenter?.pending() ?? []));
  api.post('/prompts/:id/answer', async (c) => {
    if (!presenter) return c.json({ error: 'This console has no presenter attached.' }, 404);
    let b: unknown;
    try {
      b = await c.req.json();
    } catch {
      b = undefined;
    }
    const out = presenter.answer(c.req.param('id'), b);
    if (out.status === 200) return c.json({ ok: true, action: out.action });
    return c.json({ error: out.message, issues: 'issues' in out ? out.issues : [] }, out.status);
  });
  api.post('/prompts/:id/validate', async (c) => {
    if (!presenter) return c.json({ error: 'This console has no presenter attached.' }, 404);
    let b: Record<string, unknown> = {};
    try {
      b = await body(c);
    } catch (e) {
      return c.json({ error: (e as Error).message }, 400);
    }
    const issues = presenter.validate(c.req.param('id'), b.content ?? {}, str(b.field));
    if (issues === undefined) return c.json({ error: `No pending prompt "${c.req.param('id')}".` }, 404);
    return c.json({ issues });
  });
  api.get('/notices', (c) => c.json(presenter?.recentNotices() ?? []));

  return api;
}
