// A host's view of one OAuth-protected HTTP server in tests: its configuration and the person who
// signs in (consents, and whose "browser" follows the redirects).
import { followRedirects } from '../../scripts/conformance/client.js';
import type { HostConfig, ServerDef } from '../../src/host/config/types.js';
import { DEFAULT_POLICY } from '../../src/host/config/policy.js';
import type { InputRequestView } from '../../src/host/presenter.js';

/** A host configuration with one HTTP server `name` at `url` (startup 20 s, loopback URLs allowed), `extra` over its definition. */
export function protectedServerConfig(name: string, url: string, extra: Partial<ServerDef> = {}): HostConfig {
  const def = {
    name,
    type: 'http',
    url,
    headers: {},
    origin: { file: '<test>', pointer: '' },
    timeouts: { startupMs: 20_000 },
    ...extra,
  } as ServerDef;
  return {
    servers: { [name]: def },
    routes: [],
    policy: { ...DEFAULT_POLICY, allowLoopbackUrls: true },
    presets: {},
    profile: {},
    roots: [],
    inputs: {},
    sources: [],
  };
}

/** A person who consents to each sign-in (recorded in `seen`) and whose browser follows the redirects, optionally tampering with the URL first. */
export function signer(seen: InputRequestView[], tamper: (u: URL) => Promise<void> | void = () => {}) {
  return async (p: InputRequestView) => {
    seen.push(p);
    const u = new URL(p.url!.full);
    await tamper(u);
    void followRedirects(u.href).catch(() => {});
    return { action: 'accept' as const };
  };
}
