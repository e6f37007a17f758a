/**
 * Tenant administrators' views (issue 13 item 7): a user named in `gateway.tenants.<t>.admins` reads
 * tenant `<t>`'s rows over the HTTP gateway, and never another tenant's. Endpoints (GET, bearer token of
 * the admin; JSON answers):
 * - `/admin/audit?limit=<1-10000, default 200>&user=<name>&kind=<kind>`: `{tenant, audit: AuditRecord[]}`,
 *   newest first, queried with the scope `{tenant}` fixed to the admin's tenant;
 * - `/admin/presets`, `/admin/answers`, `/admin/roots`: `{tenant, presets|answers|roots: [...]}`, the
 *   user-scope rows of each configured user of the tenant (remembered answers without their values).
 * - `/admin/signins`: `{tenant, signins: OAuthSignIn[]}`, the tenant's OAuth sign-ins (subject, user,
 *   tenant, issuer, first and last sign-in, token expiry, revokedAt; never a token), newest first.
 * - `POST /admin/signins/revoke?subject=<subject>`: `{tenant, subject, revoked: true}`; the subject's
 *   tokens issued until now are refused on every replica (src/gateway/oauth.ts); 404 when the tenant has
 *   no sign-in of that subject (another tenant's subject included: nothing is changed there).
 * A missing or unknown token: 401. A valid token of a user who is not an admin of their tenant: 403. Any
 * other method: 405. Another path under `/admin/`: 404. Bad query values: 400 naming the parameter.
 * Every answer is built from one tenant: the tenant comes from the token, never from the request.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { HostConfig, Store } from '../host/index.js';
import { HttpDenial } from '../server/serve.js';
import { parseIdentity, userForAuthorization } from './users.js';
import { MAX_CLAIM_CHARS } from './oauth.js';

/** Most audit rows one `/admin/audit` answer carries. */
export const MAX_ADMIN_AUDIT_ROWS = 10_000;

const json = (status: number, body: unknown) =>
  new HttpDenial(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }, JSON.stringify(body));
const fail = (status: number, message: string, extra: Record<string, string> = {}) =>
  new HttpDenial(status, { 'content-type': 'application/json', ...extra }, JSON.stringify({ error: message }));

/**
 * The `/admin/*` answers for the gateway's HTTP server (`HttpOptions.routes`), or `undefined` for paths
 * outside `/admin/`.
 */
export function adminRoutes(o: {
  config: HostConfig;
  users: Record<string, { tokenSha256: string }>;
  store?: Store;
  /** Told after a sign-in was revoked here, so this replica stops trusting its tokens at once. */
  onRevoke?: (tenant: string, subject: string) => void;
}): (pathname: string, req: IncomingMessage) => Promise<HttpDenial | undefined> | undefined {
  return (pathname, req) => (pathname === '/admin' || pathname.startsWith('/admin/') ? answer(pathname, req) : undefined);

  async function answer(pathname: string, req: IncomingMessage): Promise<HttpDenial> {
    const id = userForAuthorization(req.headers.authorization, o.users);
    if (!id) return fail(401, 'missing or unknown bearer token', { 'www-authenticate': 'Bearer' });
    const { tenant, user } = parseIdentity(id);
    const def = o.config.gateway?.tenants?.[tenant];
    if (!def?.admins?.includes(user))
      return fail(403, `user "${user}" of tenant "${tenant}" is not an administrator (gateway.tenants.${tenant}.admins)`);
    if (!o.store) return fail(404, 'this gateway has no store');
    const store = o.store;
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    if (pathname === '/admin/signins/revoke') {
      if (req.method !== 'POST') return fail(405, 'only POST', { allow: 'POST' });
      const subject = q.get('subject');
      if (!subject || subject.length > MAX_CLAIM_CHARS) return fail(400, `subject must be given, 1-${MAX_CLAIM_CHARS} characters`);
      if (!store.revokeSignIn) return fail(404, 'this store keeps no OAuth sign-ins');
      // Scoped by the admin's tenant: another tenant's subject matches no row and changes nothing.
      if (!(await store.revokeSignIn(tenant, subject, Date.now())))
        return fail(404, `tenant "${tenant}" has no OAuth sign-in of subject "${subject}"`);
      o.onRevoke?.(tenant, subject);
      return json(200, { tenant, subject, revoked: true });
    }
    if (req.method !== 'GET') return fail(405, 'only GET', { allow: 'GET' });
    const members = Object.keys(def.users);
    const scope = (u: string) => ({ tenant, user: u, session: null });
    switch (pathname) {
      case '/admin/audit': {
        const limit = q.has('limit') ? Number(q.get('limit')) : 200;
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ADMIN_AUDIT_ROWS)
          return fail(400, `limit must be an integer from 1 to ${MAX_ADMIN_AUDIT_ROWS}`);
        const only = q.get('user') ?? undefined;
        const kind = q.get('kind') ?? undefined;
        const rows = await store.queryAudit({ scope: { tenant, ...(only ? { user: only } : {}) }, ...(kind ? { kind } : {}), limit });
        // The store scopes by tenant; checked again so a store bug cannot leak another tenant's row.
        return json(200, { tenant, audit: rows.filter((r) => r.scope.tenant === tenant) });
      }
      case '/admin/presets': {
        const presets = (await Promise.all(members.map((u) => store.listPresets(scope(u))))).flat();
        return json(200, { tenant, presets: presets.filter((p) => p.scope.tenant === tenant) });
      }
      case '/admin/roots': {
        const roots = (await Promise.all(members.map((u) => store.listRoots(scope(u))))).flat();
        return json(200, { tenant, roots: roots.filter((r) => r.scope.tenant === tenant) });
      }
      case '/admin/answers': {
        const list = store.listAnswers?.bind(store);
        const rows = list ? (await Promise.all(members.map((u) => list(scope(u))))).flat() : [];
        return json(200, {
          tenant,
          answers: rows
            .filter((a) => a.scope.tenant === tenant)
            .map((a) => ({ scope: a.scope, server: a.server, schemaHash: a.schemaHash, remember: a.remember })),
        });
      }
      case '/admin/signins': {
        const rows = store.listSignIns ? await store.listSignIns(tenant) : [];
        return json(200, { tenant, signins: rows.filter((r) => r.tenant === tenant) });
      }
      default:
        return fail(
          404,
          `no admin view "${pathname}"; views: /admin/audit, /admin/presets, /admin/answers, /admin/roots, /admin/signins (POST /admin/signins/revoke?subject=)`,
        );
    }
  }
}
