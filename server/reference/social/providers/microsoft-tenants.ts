/**
 * Microsoft identity platform's tenant rules ("ID token claims reference", "Multi-tenant apps: validate
 * issuers"): which issuer a tenant's discovery may name, which tenant an ID token may come from, and when
 * its address is one Microsoft vouches for.
 */

/** The tenant of every personal Microsoft account (Outlook.com, Hotmail, Xbox…). */
const PERSONAL_ACCOUNTS_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad'
/** The issuer placeholder of the multi-tenant endpoints' discovery, to be replaced by the token's `tid`. */
const TENANT_PLACEHOLDER = '{tenantid}'
const TENANT_ID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The endpoints that take several tenants; any other value names one tenant (its id or one of its domains). */
const MULTI_TENANT = new Set(['common', 'organizations', 'consumers'])

const lower = (value: string): string => value.toLowerCase()

/**
 * The issuer a tenant's discovery document must name: `${authority}/{tenantid}/v2.0` for `common` and
 * `organizations`, the personal accounts' tenant for `consumers`, a tenant id for one tenant (given as its
 * id, that id). Throws otherwise: a document that names another issuer is not this tenant's.
 */
export function checkDiscoveredIssuer (issuer: unknown, authority: string, tenant: string): string {
  const match = typeof issuer === 'string' && issuer.startsWith(`${authority}/`) ? /^([^/]+)\/v2\.0$/.exec(issuer.slice(authority.length + 1)) : null
  const segment = match?.[1]
  const configured = lower(tenant)
  const fits = segment !== undefined && (configured === 'common' || configured === 'organizations'
    ? segment === TENANT_PLACEHOLDER
    : TENANT_ID_FORMAT.test(segment) && (configured === 'consumers' ? segment === PERSONAL_ACCOUNTS_TENANT : !TENANT_ID_FORMAT.test(configured) || segment === configured))
  if (!fits) throw new Error('Microsoft\'s discovery document names an issuer that is not the configured tenant\'s')
  return issuer as string
}

/**
 * Checks an ID token's tenant: its `tid` is a tenant id, its `iss` is the discovered issuer with that `tid`
 * in place of the placeholder (so a token from one tenant cannot pass for another's), and the tenant is one
 * the configured endpoint takes: that tenant alone, only personal accounts for `consumers`, only work and
 * school accounts for `organizations`. Throws with what failed.
 */
export function checkTokenTenant (claims: Readonly<Record<string, unknown>>, discoveredIssuer: string, tenant: string): string {
  const { iss, tid } = claims
  if (typeof tid !== 'string' || !TENANT_ID_FORMAT.test(tid)) throw new Error('Microsoft\'s ID token names no tenant (tid)')
  if (iss !== discoveredIssuer.replace(TENANT_PLACEHOLDER, tid)) throw new Error('Microsoft\'s ID token has an issuer that is not its tenant\'s (iss and tid differ)')
  const configured = lower(tenant)
  if (configured === 'consumers' && tid !== PERSONAL_ACCOUNTS_TENANT) throw new Error('Microsoft\'s ID token is not a personal account\'s')
  if (configured === 'organizations' && tid === PERSONAL_ACCOUNTS_TENANT) throw new Error('Microsoft\'s ID token is a personal account\'s')
  // One tenant (by id or by domain): its discovery named its id in a fixed issuer, which iss has just matched.
  if (!MULTI_TENANT.has(configured) && !discoveredIssuer.includes(`/${tid}/`)) throw new Error('Microsoft\'s ID token is from another tenant')
  return tid
}

/**
 * The authorization response's `iss` (RFC 9207), when Microsoft sends one: it must be the discovered issuer
 * (a tenant's own, under `common` any tenant's id in the template's place), else the answer is another
 * authorization server's (a mix-up) and its code must not be sent to Microsoft's token endpoint. Once the
 * token is verified, it must also be the token's own issuer (the caller checks that).
 */
export function checkAnswerIssuer (returned: string | null, discoveredIssuer: string): void {
  if (returned === null) return
  const [before, after] = discoveredIssuer.split(TENANT_PLACEHOLDER)
  const matches = after === undefined
    ? returned === discoveredIssuer
    : returned.startsWith(before!) && returned.endsWith(after) && TENANT_ID_FORMAT.test(returned.slice(before!.length, returned.length - after.length))
  if (!matches) throw new Error('Microsoft\'s answer names another issuer (iss)')
}

/**
 * Whether Microsoft vouches for the token's `email`: an address of a personal account (Microsoft verified
 * it), or one the tenant marked verified by its domain owner (the optional claim `xms_edov`). A work
 * account's `email` is otherwise whatever its tenant's administrator typed: not evidence of ownership.
 */
export function microsoftEmailVerified (claims: Readonly<Record<string, unknown>>): boolean {
  return claims.tid === PERSONAL_ACCOUNTS_TENANT || claims.xms_edov === true
}
