// A small product behind the Threshold sign-in page, on the page's parent
// domain (cookie mode, docs/products.md): it verifies the `auth` cookie,
// refreshes it on its server with the `refresh` cookie when it has expired,
// writes both back as the page sets them, sends a signed-out visitor to the
// page with a `redirect`, and signs out through the page. Run it with Node 24
// as it is (no build):
//
//   THRESHOLD_URL=https://signin.example.com node examples/cookie-product/server.ts
//
// README.md beside this file says what each variable does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'

export interface ProductOptions {
  /** The page's PUBLIC_URL (an origin): the tokens' issuer is it plus `/accounts`, their audience it. */
  readonly pageUrl: URL
  /** This product's own origin, where the page sends visitors back; null: the address it listens on. */
  readonly productUrl: URL | null
  /** The page's COOKIE_DOMAIN, or the domain it derives (docs/page.md, "Cookie domain"); null: host-only. */
  readonly cookieDomain: string | null
  /** The page's AUTH_COOKIE_HTTPONLY: the `auth` cookie is written HttpOnly too. */
  readonly authHttpOnly: boolean
}

/** What the product knows of a signed-in visitor, from a verified auth token. */
interface Visitor {
  readonly accountId: string
  readonly email: string
  /** The session (the refresh family): a product that keeps its own list of ended sessions checks it. */
  readonly sessionId: string
}

/** A refresh's outcome: a new pair, the session over (401), or the page unreachable for now. */
type Refreshed =
  | { readonly kind: 'tokens', readonly auth: string, readonly refresh: string }
  | { readonly kind: 'ended' }
  | { readonly kind: 'unavailable' }

const FOURTEEN_DAYS_MS = 14 * 24 * 60 * 60 * 1000
const REFRESH_TIMEOUT_MS = 10_000
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/

/** The cookies of a request, decoded as the page writes them (js-cookie's percent-encoding). */
function cookiesOf (request: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const separator = pair.indexOf('=')
    if (separator <= 0) continue
    const name = pair.slice(0, separator).trim()
    if (cookies.has(name)) continue
    const raw = pair.slice(separator + 1).trim()
    try {
      cookies.set(name, decodeURIComponent(raw))
    } catch {
      cookies.set(name, raw)
    }
  }
  return cookies
}

function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

export function createCookieProduct (options: ProductOptions): Server {
  const page = options.pageUrl.origin
  const keySet = createRemoteJWKSet(new URL('/accounts/.well-known/jwks.json', page))
  // The page's own rule (docs/security.md, "Plain http on loopback"): Secure but on a loopback page over plain http.
  const secure = !(options.pageUrl.protocol === 'http:' && LOOPBACK.test(options.pageUrl.hostname))
  /** The refreshes under way, by refresh token: parallel requests of one browser share one. */
  const refreshing = new Map<string, Promise<Refreshed>>()

  /** Every fact a token of the page is checked for, in one place (docs/products.md, "Verify the auth cookie"). */
  async function verify (token: string): Promise<Visitor | null> {
    let payload: JWTPayload
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: `${page}/accounts`,
        audience: page,
        typ: 'at+jwt',
        algorithms: ['EdDSA'],
        requiredClaims: ['sub', 'sid', 'exp', 'iat'],
        clockTolerance: 60
      }))
    } catch {
      return null
    }
    // A local-network sign-in's token works only at its own listener (docs/account-changes.md#what-the-tokens-say).
    if (payload.scope === 'local-network') return null
    return { accountId: payload.sub!, email: typeof payload.email === 'string' ? payload.email : '', sessionId: String(payload.sid) }
  }

  async function refreshAtPage (refreshToken: string): Promise<Refreshed> {
    try {
      // A server's call (no Origin, no Sec-Fetch-Site): the edge answers both tokens in the body.
      const response = await fetch(`${page}/accounts/token/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh: refreshToken }),
        signal: AbortSignal.timeout(REFRESH_TIMEOUT_MS)
      })
      if (response.status === 401) return { kind: 'ended' }
      if (!response.ok) return { kind: 'unavailable' }
      const body = await response.json() as { auth?: unknown, refresh?: unknown }
      if (typeof body.auth !== 'string' || typeof body.refresh !== 'string') return { kind: 'unavailable' }
      return { kind: 'tokens', auth: body.auth, refresh: body.refresh }
    } catch {
      // No answer: the token may be presented again within the page's grace (REFRESH_REUSE_GRACE_SECONDS).
      return { kind: 'unavailable' }
    }
  }

  function refreshOnce (refreshToken: string): Promise<Refreshed> {
    let pending = refreshing.get(refreshToken)
    if (pending === undefined) {
      pending = refreshAtPage(refreshToken).finally(() => refreshing.delete(refreshToken))
      refreshing.set(refreshToken, pending)
    }
    return pending
  }

  /** The attributes the page gives its token cookies (docs/security.md, "The token cookies"). */
  function attributes (lifetime: string, httpOnly: boolean): string {
    return [
      lifetime,
      'Path=/',
      ...(options.cookieDomain === null ? [] : [`Domain=${options.cookieDomain}`]),
      ...(secure ? ['Secure'] : []),
      ...(httpOnly ? ['HttpOnly'] : []),
      'SameSite=Lax'
    ].join('; ')
  }

  function tokenCookies (auth: string, refresh: string): string[] {
    const expires = `Expires=${new Date(Date.now() + FOURTEEN_DAYS_MS).toUTCString()}`
    return [`auth=${auth}; ${attributes(expires, options.authHttpOnly)}`, `refresh=${refresh}; ${attributes(expires, true)}`]
  }

  /** Removes both cookies: the same name, Domain and Path as the page's, or the browser keeps them. */
  const clearedCookies = (): string[] => [`auth=; ${attributes('Max-Age=0', options.authHttpOnly)}`, `refresh=; ${attributes('Max-Age=0', true)}`]

  const productOrigin = (server: Server): string => {
    if (options.productUrl !== null) return options.productUrl.origin
    const address = server.address()
    return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  }

  /** The signed-in visitor, refreshing on the way when the auth token has expired; the cookies to set with the answer. */
  async function visitorOf (request: IncomingMessage): Promise<{ visitor: Visitor | null, setCookies: string[], unavailable: boolean }> {
    const cookies = cookiesOf(request)
    const auth = cookies.get('auth')
    const visitor = auth === undefined ? null : await verify(auth)
    if (visitor !== null) return { visitor, setCookies: [], unavailable: false }
    const refreshToken = cookies.get('refresh')
    if (refreshToken === undefined) return { visitor: null, setCookies: [], unavailable: false }
    const refreshed = await refreshOnce(refreshToken)
    if (refreshed.kind === 'unavailable') return { visitor: null, setCookies: [], unavailable: true }
    if (refreshed.kind === 'ended') return { visitor: null, setCookies: clearedCookies(), unavailable: false }
    const renewed = await verify(refreshed.auth)
    if (renewed === null) return { visitor: null, setCookies: clearedCookies(), unavailable: false }
    return { visitor: renewed, setCookies: tokenCookies(refreshed.auth, refreshed.refresh), unavailable: false }
  }

  function html (response: ServerResponse, status: number, title: string, body: string, setCookies: string[] = []): void {
    response.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...(setCookies.length === 0 ? {} : { 'set-cookie': setCookies })
    })
    response.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title><main>${body}</main></html>\n`)
  }

  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://product.invalid').pathname
      const origin = productOrigin(server)
      const signInLink = `${page}/?redirect=${encodeURIComponent(`${origin}/`)}`
      if (request.method !== 'GET') return html(response, 405, 'Not allowed', '<h1>Not allowed</h1>')
      if (path === '/signed-out') {
        return html(response, 200, 'Signed out', `<h1>You're signed out</h1><p><a href="${escapeHtml(signInLink)}">Sign in</a></p>`)
      }
      if (path !== '/') return html(response, 404, 'Not found', '<h1>Not found</h1>')
      const { visitor, setCookies, unavailable } = await visitorOf(request)
      if (unavailable) return html(response, 503, 'Try again', '<h1>Signing in is unavailable right now</h1><p>Please try again in a moment.</p>')
      if (visitor === null) {
        response.writeHead(303, { location: `${page}/?redirect=${encodeURIComponent(`${origin}${request.url ?? '/'}`)}`, 'cache-control': 'no-store', ...(setCookies.length === 0 ? {} : { 'set-cookie': setCookies }) })
        return response.end()
      }
      const signOutLink = `${page}/?view=logout&redirect=${encodeURIComponent(`${origin}/signed-out`)}`
      html(response, 200, 'The product', `<h1>Welcome</h1><p>Signed in as <strong>${escapeHtml(visitor.email)}</strong>.</p><p><a href="${escapeHtml(signOutLink)}">Sign out</a></p>`, setCookies)
    })().catch((error: unknown) => {
      console.error('request failed:', error instanceof Error ? error.message : 'unknown error')
      if (!response.headersSent) html(response, 500, 'Error', '<h1>Something went wrong</h1>')
    })
  })
  return server
}

/** The options from environment variables; a bad value stops the start with a message naming it. */
export function optionsFromEnv (env: Readonly<Record<string, string | undefined>>): ProductOptions {
  const origin = (name: string, value: string): URL => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw new Error(`${name} must be an origin such as https://signin.example.com`)
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) throw new Error(`${name} must be an origin such as https://signin.example.com`)
    return url
  }
  if (env.THRESHOLD_URL === undefined) throw new Error('THRESHOLD_URL must be set: the sign-in page\'s PUBLIC_URL')
  return {
    pageUrl: origin('THRESHOLD_URL', env.THRESHOLD_URL),
    productUrl: env.PRODUCT_URL === undefined ? null : origin('PRODUCT_URL', env.PRODUCT_URL),
    cookieDomain: env.COOKIE_DOMAIN === undefined || env.COOKIE_DOMAIN === '' ? null : env.COOKIE_DOMAIN.replace(/^\./, '').toLowerCase(),
    authHttpOnly: env.AUTH_COOKIE_HTTPONLY === 'true'
  }
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3000)
  const host = process.env.HOST ?? '127.0.0.1'
  const server = createCookieProduct(optionsFromEnv(process.env))
  server.listen(port, host, () => {
    const address = server.address()
    console.log(`cookie product on http://${host}:${typeof address === 'object' && address !== null ? address.port : port}`)
  })
  process.on('SIGTERM', () => server.close())
}
