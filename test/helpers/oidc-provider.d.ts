// Minimal typing for the `oidc-provider` test dependency (it ships no types; the OAuth tests use it through test/helpers/oidc-stack.ts and test/gateway-oauth.test.ts).
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;
  const Provider: Any;
  type Provider = Any;
  export default Provider;
  export const errors: Any;
}
