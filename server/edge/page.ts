import { randomFillSync } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { serializeRuntimeConfig, type RuntimeConfig } from '../../common/runtime-config.js'

/** Slots that build.mjs and client/index.html leave in the page template. */
const NONCE_SLOT = '__THRESHOLD_NONCE__'
const TITLE_SLOT = '__THRESHOLD_TITLE__'
const CONFIG_SLOT = '__THRESHOLD_RUNTIME_CONFIG__'

function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

/**
 * Pages prepared for this many distinct hosts are kept. Until ALLOWED_HOSTS
 * refuses foreign Host headers, the host is the visitor's to choose: beyond
 * the cap a page is prepared per request (a few microseconds), never stored,
 * so no stream of invented hosts can grow the memory. A real site has a
 * handful of names.
 */
export const MAX_CACHED_PAGE_HOSTS = 100

/** The page for one host: everything but the per-response CSP nonce is filled in. */
export class PreparedPage {
  /** Bytes of the page without its nonces; every nonce is base64, so one byte per character. */
  private readonly fixedBytes: number

  constructor (private readonly pieces: readonly string[]) {
    this.fixedBytes = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0)
  }

  render (nonce: string): string {
    return this.pieces.join(nonce)
  }

  /** The byte length of `render(nonce)`, without encoding it. */
  byteLength (nonce: string): number {
    return this.fixedBytes + nonce.length * (this.pieces.length - 1)
  }
}

/**
 * The page template, read once at start. The runtime configuration is the
 * same for every host but for the cookie domain, which follows the host the
 * browser asked for (server/edge/cookie-domain.ts); the page for a host is
 * prepared on its first request and kept, so that a page view costs a nonce
 * and a string join.
 */
export class PageTemplate {
  private readonly byHost = new Map<string, PreparedPage>()

  private constructor (
    private readonly template: string,
    private readonly runtimeConfig: RuntimeConfig,
    private readonly cookieDomainOf: (hostname: string) => string | null
  ) {}

  /**
   * Reads the template. `cookieDomainOf` gives the cookie domain for a host
   * name as the edge states it (canonical: lower case, without the port).
   */
  static async load (
    indexHtmlPath: string,
    runtimeConfig: RuntimeConfig,
    cookieDomainOf: (hostname: string) => string | null
  ): Promise<PageTemplate> {
    const template = await readFile(indexHtmlPath, 'utf8')
    if (!template.includes(CONFIG_SLOT) || !template.includes(NONCE_SLOT)) {
      throw new Error(`${indexHtmlPath} is not a Threshold page template; run the build again`)
    }
    return new PageTemplate(template.replaceAll(TITLE_SLOT, escapeHtml(`Sign in · ${runtimeConfig.productName}`)), runtimeConfig, cookieDomainOf)
  }

  /** The page for a host name (as the edge states it: see host-header.ts statedHostName). */
  forHost (hostname: string): PreparedPage {
    const cached = this.byHost.get(hostname)
    if (cached !== undefined) return cached
    const config = { ...this.runtimeConfig, cookieDomain: this.cookieDomainOf(hostname) }
    const page = new PreparedPage(this.template.replace(CONFIG_SLOT, serializeRuntimeConfig(config)).split(NONCE_SLOT))
    if (this.byHost.size < MAX_CACHED_PAGE_HOSTS) this.byHost.set(hostname, page)
    return page
  }
}

const NONCE_BYTES = 16
const POOL_NONCES = 256

/**
 * CSP nonces: 128 random bits each, base64. Drawn from a pool refilled 256 at
 * a time, because a call into the CSPRNG per page view shows in throughput.
 */
export function createNonceSource (): () => string {
  const pool = Buffer.alloc(NONCE_BYTES * POOL_NONCES)
  let offset = pool.length
  return function nextNonce (): string {
    if (offset === pool.length) {
      randomFillSync(pool)
      offset = 0
    }
    const nonce = pool.toString('base64', offset, offset + NONCE_BYTES)
    offset += NONCE_BYTES
    return nonce
  }
}
