import helmetPlugin, { type FastifyHelmetOptions } from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet from 'helmet'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isLoopbackHost } from '../../../common/http/hosts.js'

/** Google Identity Services, as Google documents its CSP needs. */
const GOOGLE_CLIENT_SCRIPT = 'https://accounts.google.com/gsi/client'
const GOOGLE_GSI = 'https://accounts.google.com/gsi/'
const GOOGLE_STYLE = 'https://accounts.google.com/gsi/style'

/**
 * Where a form may lead from a response that is not the page: its own
 * origin only (no such response has a form; the page's own list is
 * {@link formActionSources}).
 */
const STATIC_FORM_ACTION = ["'self'"]

/**
 * Loopback over http, as the redirect check allows it (common/http/hosts.ts
 * isLoopbackHost), named only for a page itself served on a loopback host
 * (a developer's machine, local-network mode): a page on a public host over
 * https that names any `http:` source loses the MDN HTTP Observatory's CSP
 * credit (an insecure scheme in an active directive, form-action included),
 * and a login posted there has no business ending on plain http.
 * `http://[::1]` cannot be named: CSP source expressions have no IPv6
 * literal, so a redirect to it is held by form-action.
 */
const LOOPBACK_FORM_ACTION = ['http://localhost:*', 'http://127.0.0.1:*']

/**
 * The page's `form-action` for a host: exactly where a form post may lead.
 * Browsers hold the redirects after a form's submission to `form-action`
 * too, and a login posted without scripts ends in a 303 to the redirect
 * target, which the redirect check (common/page/redirect-target.ts) allows on
 * this origin, the cookie domain and its subdomains, and the
 * REDIRECT_ALLOWED_HOSTS hosts, over https (any port), or http on loopback
 * for a page on a loopback host ({@link LOOPBACK_FORM_ACTION}). The SSO
 * start, whose identity provider may be anywhere, leaves by a page with a
 * meta refresh instead (docs/no-script.md), which form-action does not
 * govern.
 */
function formActionSources (pageHostname: string, cookieDomain: string | null, redirectAllowedHosts: readonly string[]): string {
  const sources = ["'self'"]
  if (cookieDomain !== null) sources.push(`https://${cookieDomain}:*`, `https://*.${cookieDomain}:*`)
  for (const host of redirectAllowedHosts) sources.push(`https://${host}:*`)
  if (isLoopbackHost(pageHostname)) sources.push(...LOOPBACK_FORM_ACTION)
  return [...new Set(sources)].join(' ')
}

/** Hosts whose form-action is kept; past this the cache starts over (any Host is served without ALLOWED_HOSTS). */
const FORM_ACTION_CACHE_HOSTS = 256

/**
 * {@link formActionSources} per host, kept: the cookie domain is a Public
 * Suffix List lookup, and the page asks on every view.
 */
export function formActionByHost (cookieDomainOf: (hostname: string) => string | null, redirectAllowedHosts: readonly string[]): (hostname: string) => string {
  const kept = new Map<string, string>()
  return (hostname) => {
    let sources = kept.get(hostname)
    if (sources === undefined) {
      if (kept.size >= FORM_ACTION_CACHE_HOSTS) kept.clear()
      sources = formActionSources(hostname, cookieDomainOf(hostname), redirectAllowedHosts)
      kept.set(hostname, sources)
    }
    return sources
  }
}

const HSTS_MAX_AGE_SECONDS = 2 * 365 * 24 * 60 * 60
export const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=(), usb=()'
export const NO_STORE = 'no-store'

const CONNECT_SLOT = 'https://connect-slot.invalid'
const FORM_ACTION_SLOT = 'https://form-action-slot.invalid'
const STYLE_SLOT = 'https://style-slot.invalid'

type Directives = Record<string, string[]>

/**
 * The page has no nonce in `script-src`: it has no inline script, and a
 * policy without `'strict-dynamic'` lets a nonce allow nothing that `'self'`
 * does not. Without one, a page's bytes are the same for every visitor who
 * asks the same (server/edge/page/compressed-pages.ts compresses them once).
 * Inline scripts stay refused: no `'unsafe-inline'`, no nonce or hash source.
 */
function contentSecurityDirectives (extraConnectSrc: string | null, formAction: readonly string[], styleSlot = false): Directives {
  return {
    'default-src': ["'none'"],
    'script-src': ["'self'", GOOGLE_CLIENT_SCRIPT],
    'style-src': ["'self'", GOOGLE_STYLE, ...(styleSlot ? [STYLE_SLOT] : [])],
    'img-src': ["'self'", 'data:'],
    'media-src': ["'self'"],
    'connect-src': ["'self'", GOOGLE_GSI, ...(extraConnectSrc === null ? [] : [extraConnectSrc])],
    'frame-src': [GOOGLE_GSI],
    'form-action': [...formAction],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
    'frame-ancestors': ["'none'"]
  }
}

/**
 * The one definition of the header set. Every choice that departs from
 * helmet's defaults says why.
 */
function helmetOptions (directives: Directives): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives },
    // require-corp would block Google's sign-in iframe and script.
    crossOriginEmbedderPolicy: false,
    // Google's sign-in popup must be able to message its opener.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    originAgentCluster: true,
    // no-referrer breaks Google's check of the page's origin.
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: true },
    xContentTypeOptions: true,
    xDnsPrefetchControl: { allow: false },
    xDownloadOptions: true,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
    xPoweredBy: true,
    xXssProtection: true
  }
}

/** Runs helmet once against a recorder, to reuse its output without per-request work. */
function recordHelmetHeaders (options: FastifyHelmetOptions): Record<string, string> {
  const recorded: Record<string, string> = {}
  const recorder = {
    setHeader (name: string, value: string | number) { recorded[name.toLowerCase()] = String(value) },
    removeHeader (name: string) { delete recorded[name.toLowerCase()] }
  }
  // @fastify/helmet types its options from helmet's CommonJS typings; they are the same options.
  helmet(options as Parameters<typeof helmet>[0])(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => { if (error !== undefined) throw error instanceof Error ? error : new Error('helmet failed', { cause: error }) }
  )
  recorded['permissions-policy'] = PERMISSIONS_POLICY
  return recorded
}

/**
 * Headers of every response that is not the page: helmet's set with a CSP that
 * allows no inline script at all, plus the Permissions-Policy.
 */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  recordHelmetHeaders(helmetOptions(contentSecurityDirectives(null, STATIC_FORM_ACTION)))
)

const pageCspTemplate = recordHelmetHeaders(
  helmetOptions(contentSecurityDirectives(CONNECT_SLOT, [FORM_ACTION_SLOT], true))
)['content-security-policy'] ?? ''
// In the order helmet writes the directives: style-src, connect-src, form-action.
const [beforeStyle = '', afterStyle = ''] = pageCspTemplate.split(` ${STYLE_SLOT}`)
const [betweenStyleAndConnect = '', afterConnect = ''] = afterStyle.split(` ${CONNECT_SLOT}`)
const [betweenConnectAndFormAction = '', afterFormAction = ''] = afterConnect.split(FORM_ACTION_SLOT)

/**
 * The page's CSP: the static policy plus, in local-network mode, the one
 * local accounts origin the page may post to, and the host's `form-action`
 * sources ({@link formActionSources}).
 * `styleSources` (`'sha256-…'`, space-separated) allow the page's inline
 * brand style (server/edge/brand/brand-style.ts); the policy keeps no
 * 'unsafe-inline'. Built by string assembly because it runs on every page view.
 */
export function pageContentSecurityPolicy (localAccountsOrigin: string | null, formAction: string, styleSources = ''): string {
  return beforeStyle + (styleSources === '' ? '' : ` ${styleSources}`) + betweenStyleAndConnect +
    (localAccountsOrigin === null ? '' : ` ${localAccountsOrigin}`) + betweenConnectAndFormAction + formAction + afterFormAction
}

/**
 * The page's CSP with a challenge provider's origins (CHALLENGE=turnstile or
 * hcaptcha; server/edge/challenge/challenge-config.ts PROVIDER_ORIGINS) added to
 * `script-src` (its widget's script), `frame-src` (the widget's frame) and
 * `connect-src`. Without a provider the policy names no third party of the
 * challenge's: the proof of work runs in a Worker from 'self'.
 */
export function withChallengeProviderSources (policy: string, origins: string): string {
  // helmet separates the directives with a bare `;`.
  return policy.split(';').map((directive) => {
    const name = directive.trim().split(' ')[0]
    return name === 'script-src' || name === 'frame-src' || name === 'connect-src' ? `${directive} ${origins}` : directive
  }).join(';')
}

/**
 * Registers @fastify/helmet for everything Fastify answers (API, health, 404,
 * large media), adds the Permissions-Policy, and makes `no-store` the default
 * Cache-Control: a route that may be cached says so itself.
 */
export const securityHeaders = fp(async function securityHeaders (app: FastifyInstance) {
  await app.register(helmetPlugin, helmetOptions(contentSecurityDirectives(null, STATIC_FORM_ACTION)))
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('permissions-policy', PERMISSIONS_POLICY)
  })
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', NO_STORE)
  })
}, { name: 'threshold-security-headers' })
