import { createHash } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { ConfigError, readString, type Env } from '../../shared/env-parsing.js'
import type { FileIdentity } from '../brand/brand-files.js'
import { STATIC_SECURITY_HEADERS } from '../http/security-headers.js'

/** Hashed asset names never change content, so browsers may keep them for a year. */
const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable'

/**
 * Files larger than this, and audio or video of any size, are streamed from
 * disk by @fastify/static (which answers Range requests, as video players
 * need); everything else is held in memory with its compressed variants.
 */
const MEMORY_FILE_LIMIT_BYTES = 2 * 1024 * 1024

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm'
}

function contentTypeFor (name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream'
}

/**
 * Streamed from disk: large files, audio and video (for Range requests), and
 * what only developers fetch (source maps when public, licence texts), which
 * need not cost memory or start time.
 */
function isStreamed (name: string, size: number): boolean {
  return size > MEMORY_FILE_LIMIT_BYTES || /^(video|audio)\//.test(contentTypeFor(name)) || /\.(map|txt)$/.test(name)
}

export type Encoding = 'br' | 'gzip' | 'identity'

/** One representation of an asset: its bytes and the complete header list. */
interface AssetVariant {
  readonly body: Buffer
  readonly etag: string
  /** Flat [name, value, name, value, …] list, ready for `writeHead`. */
  readonly headers: readonly string[]
  /** The same for a 304 answer, which carries no body. */
  readonly notModifiedHeaders: readonly string[]
}

/** A file streamed from disk under /assets/: `file` in `folder`, with headers of its own beside the static set. */
export interface StreamedFile {
  readonly folder: string
  readonly file: string
  readonly headers?: Readonly<Record<string, string>>
  /** The file as it was checked at start (an operator's video): a file that no longer matches is refused, not served. */
  readonly expected?: FileIdentity
}

/**
 * A file served under /assets/ that is not the build's (the operator's brand
 * files): held in memory (`body`) or streamed from disk, with headers that
 * replace the static ones (an SVG's own CSP).
 */
export interface ExtraAsset {
  /** The name under /assets/, such as `brand/logo-ABC.png`; its extension gives the Content-Type. */
  readonly name: string
  readonly source: { readonly body: Buffer } | StreamedFile
  readonly headers: Readonly<Record<string, string>>
  /** Also held brotli- and gzip-compressed, chosen by Accept-Encoding as the build's files are (a body held in memory only). */
  readonly compress?: boolean
}

export interface Asset {
  readonly variants: Readonly<Partial<Record<Encoding, AssetVariant>>> & { readonly identity: AssetVariant }
}

function flatHeaders (headers: Record<string, string>): string[] {
  return Object.entries(headers).flat()
}

function variant (name: string, body: Buffer, hash: string, encoding: Encoding, hasVariants: boolean, sourceMap: string | null,
  overrides: Readonly<Record<string, string>> = {}): AssetVariant {
  const etag = `"${hash}${encoding === 'identity' ? '' : `-${encoding}`}"`
  const headers: Record<string, string> = {
    ...STATIC_SECURITY_HEADERS,
    ...overrides,
    'content-type': contentTypeFor(name),
    'content-length': String(body.length),
    'cache-control': IMMUTABLE_CACHE_CONTROL,
    etag
  }
  if (hasVariants) headers.vary = 'Accept-Encoding'
  // The scripts carry no sourceMappingURL comment; developer tools read this header instead.
  if (sourceMap !== null) headers.sourcemap = sourceMap
  if (encoding !== 'identity') headers['content-encoding'] = encoding
  const { 'content-length': _length, ...notModified } = headers
  return { body, etag, headers: flatHeaders(headers), notModifiedHeaders: flatHeaders(notModified) }
}

/** A q-value as RFC 9110 writes it (0 to 1, at most three decimals); anything else is not one. */
const Q_VALUE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i

/**
 * The weight an Accept-Encoding member gives (its parameters after the first
 * `;`): 1 without a q-value, 0 (refused) for a malformed one, as a weight the
 * server cannot read must not turn an encoding on.
 */
function weightOf (parameters: string): number {
  for (const parameter of parameters.split(';')) {
    const trimmed = parameter.trim()
    if (trimmed.length > 1 && (trimmed[0] === 'q' || trimmed[0] === 'Q') && trimmed[1] === '=') {
      return Q_VALUE.test(trimmed) ? Number(trimmed.slice(2)) : 0
    }
  }
  return 1
}

/**
 * Picks the encoding to send among those `available` (an asset's or a page's
 * variants), by the request's Accept-Encoding (RFC 9110 §12.5.3): the
 * highest weight wins, brotli before gzip at equal weights (it is smaller);
 * `*` weighs the codings the header does not name (`br;q=0, *` refuses
 * brotli); `x-gzip` is gzip. Identity when the header is absent or refuses
 * both, or when it names identity with a higher weight than the best coding.
 */
export function negotiateEncoding (acceptEncoding: string | undefined, available: Readonly<Partial<Record<Encoding, unknown>>>): Encoding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity'
  let brotli = -1
  let gzip = -1
  let identity = -1
  let any = -1
  for (const member of acceptEncoding.split(',')) {
    const semicolon = member.indexOf(';')
    const coding = (semicolon === -1 ? member : member.slice(0, semicolon)).trim().toLowerCase()
    const weight = semicolon === -1 ? 1 : weightOf(member.slice(semicolon + 1))
    if (coding === 'br') brotli = weight
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = weight
    else if (coding === 'identity') identity = weight
    else if (coding === '*') any = weight
  }
  const brotliWeight = available.br === undefined ? 0 : brotli === -1 ? Math.max(any, 0) : brotli
  const gzipWeight = available.gzip === undefined ? 0 : gzip === -1 ? Math.max(any, 0) : gzip
  const best = Math.max(brotliWeight, gzipWeight)
  if (best === 0 || identity > best) return 'identity'
  return brotliWeight === best ? 'br' : 'gzip'
}

/** A folder's names; none when it does not exist (a build without source maps). */
async function readdirIfPresent (folder: string): Promise<string[]> {
  try {
    return await readdir(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}

/**
 * The hashed assets of the build, read once at start. Serving from memory is
 * what lets the edge approach nginx: reading the disk per request is ~20×
 * slower on these machines.
 */
export class AssetStore {
  private constructor (
    private readonly assets: ReadonlyMap<string, Asset>,
    /** Names under /assets/ that are streamed from disk instead, each with where it is. */
    readonly streamedFiles: ReadonlyMap<string, StreamedFile>
  ) {}

  /**
   * Reads the build's assets. With `publicSourceMapsDir` (SOURCE_MAPS=public),
   * the source maps in that folder are served under /assets/ too, and each
   * script or stylesheet names its own in a `SourceMap` header. `extra` are
   * served beside the build's files (server/edge/brand/brand-assets.ts).
   */
  static async load (assetsDir: string, publicSourceMapsDir: string | null = null, extra: readonly ExtraAsset[] = []): Promise<AssetStore> {
    const names = await readdir(assetsDir)
    const assets = new Map<string, Asset>()
    const streamed = new Map<string, StreamedFile>()
    const maps = publicSourceMapsDir === null ? [] : (await readdirIfPresent(publicSourceMapsDir)).filter((name) => name.endsWith('.map'))
    for (const map of maps) streamed.set(map, { folder: publicSourceMapsDir!, file: map })
    const mapSet = new Set(maps)
    const nameSet = new Set(names)
    const readIfPresent = (path: string, name: string): Promise<Buffer | undefined> =>
      nameSet.has(name) ? readFile(path) : Promise.resolve(undefined)
    await Promise.all(names.filter((name) => !name.endsWith('.br') && !name.endsWith('.gz')).map(async (name) => {
      const path = join(assetsDir, name)
      const info = await stat(path)
      if (!info.isFile()) return
      if (isStreamed(name, info.size)) {
        // A map left in the served folder (a build from before they moved out) is never served from there.
        if (!name.endsWith('.map')) streamed.set(name, { folder: assetsDir, file: name })
        return
      }
      const [identity, brotli, gzip] = await Promise.all([
        readFile(path), readIfPresent(`${path}.br`, `${name}.br`), readIfPresent(`${path}.gz`, `${name}.gz`)
      ])
      const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22)
      const hasVariants = brotli !== undefined || gzip !== undefined
      const sourceMap = mapSet.has(`${name}.map`) ? `/assets/${name}.map` : null
      assets.set(`/assets/${name}`, {
        variants: {
          identity: variant(name, identity, hash, 'identity', hasVariants, sourceMap),
          ...(brotli === undefined ? {} : { br: variant(name, brotli, hash, 'br', true, sourceMap) }),
          ...(gzip === undefined ? {} : { gzip: variant(name, gzip, hash, 'gzip', true, sourceMap) })
        }
      })
    }))
    for (const { name, source, headers, compress = false } of extra) {
      if ('body' in source) {
        const hash = createHash('sha256').update(source.body).digest('base64url').slice(0, 22)
        const brotli = compress ? brotliCompressSync(source.body) : undefined
        const gzip = compress ? gzipSync(source.body, { level: 9 }) : undefined
        assets.set(`/assets/${name}`, {
          variants: {
            identity: variant(name, source.body, hash, 'identity', compress, null, headers),
            ...(brotli === undefined ? {} : { br: variant(name, brotli, hash, 'br', true, null, headers) }),
            ...(gzip === undefined ? {} : { gzip: variant(name, gzip, hash, 'gzip', true, null, headers) })
          }
        })
      } else {
        streamed.set(name, { ...source, headers })
      }
    }
    return new AssetStore(assets, streamed)
  }

  /** The asset at a URL path such as `/assets/main-ABC.js`. */
  get (pathname: string): Asset | undefined {
    return this.assets.get(pathname)
  }

  /** Total bytes held in memory, all variants included. */
  get memoryBytes (): number {
    let total = 0
    for (const asset of this.assets.values()) {
      for (const entry of Object.values(asset.variants)) total += entry?.body.length ?? 0
    }
    return total
  }
}

/** SOURCE_MAPS: whether the client's source maps are served (public) or not (private, the default). */
export function readSourceMaps (env: Env): boolean {
  const value = readString(env, 'SOURCE_MAPS')
  if (value === undefined || value === 'private') return false
  if (value === 'public') return true
  throw new ConfigError('SOURCE_MAPS', 'must be public or private', value)
}
