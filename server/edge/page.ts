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
 * The page, prepared once: everything but the per-response CSP nonce is filled
 * in at start, so a page view costs a nonce and a string join.
 */
export class PageTemplate {
  /** Bytes of the page without its nonces; every nonce is base64, so one byte per character. */
  private readonly fixedBytes: number

  private constructor (private readonly pieces: readonly string[]) {
    this.fixedBytes = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0)
  }

  static async load (indexHtmlPath: string, runtimeConfig: RuntimeConfig): Promise<PageTemplate> {
    const template = await readFile(indexHtmlPath, 'utf8')
    if (!template.includes(CONFIG_SLOT) || !template.includes(NONCE_SLOT)) {
      throw new Error(`${indexHtmlPath} is not a Threshold page template; run the build again`)
    }
    const filled = template
      .replaceAll(TITLE_SLOT, escapeHtml(`Sign in · ${runtimeConfig.productName}`))
      .replace(CONFIG_SLOT, serializeRuntimeConfig(runtimeConfig))
    return new PageTemplate(filled.split(NONCE_SLOT))
  }

  render (nonce: string): string {
    return this.pieces.join(nonce)
  }

  /** The byte length of `render(nonce)`, without encoding it. */
  byteLength (nonce: string): number {
    return this.fixedBytes + nonce.length * (this.pieces.length - 1)
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
