import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import type { HotPathHandler } from './hot-path.js'
import { edgeViewOf, type EdgeViewAnswers } from './edge-views.js'
import { STATIC_SECURITY_HEADERS } from '../http/security-headers.js'
import type { FileIdentity } from '../brand/brand-files.js'
import type { AssetStore } from './static-files.js'

export interface PageRoutesOptions {
  readonly hotPath: HotPathHandler
  readonly assets: AssetStore
  readonly assetsDir: string
  /** The views the edge answers itself (edge-views.ts), which the hot path leaves to this route. */
  readonly edgeViews: EdgeViewAnswers
}

/** The build's names, and the operator's under brand/ (server/edge/brand/brand-assets.ts). */
const ASSET_NAME = /^(brand\/)?\w[\w.-]*$/

/**
 * Whether the file at `path` is still the one checked at start: same size,
 * modification time and inode (a replaced or re-pointed file differs in one).
 * A missing file is not. Checked per request rather than trusted: the name is
 * the start's hash, cached immutable by browsers and proxies.
 */
async function stillTheCheckedFile (path: string, expected: FileIdentity): Promise<boolean> {
  try {
    const now = await stat(path)
    return now.size === expected.size && now.mtimeMs === expected.mtimeMs && now.ino === expected.ino
  } catch {
    return false
  }
}

/**
 * The page and its assets as Fastify routes. In production the hot path
 * answers these before Fastify sees them; the routes make the same answers
 * reachable through `inject` and for the requests the hot path declines, and
 * stream the large media files (with Range support) through @fastify/static.
 */
export async function pageRoutes (app: FastifyInstance, options: PageRoutesOptions): Promise<void> {
  await app.register(fastifyStatic, { root: options.assetsDir, serve: false })

  // The reply is taken over only once the hot path has answered: a request it
  // declines must not be left hanging with nobody to answer it.
  app.get('/', { helmet: false }, (request, reply) => {
    const queryStart = request.url.indexOf('?')
    const edgeView = edgeViewOf(queryStart === -1 ? '' : request.url.slice(queryStart + 1))
    if (edgeView !== null) return options.edgeViews[edgeView](request, reply)
    if (options.hotPath(request.raw, reply.raw)) reply.hijack()
    else reply.callNotFound()
    return undefined
  })

  app.get('/assets/*', { helmet: false }, async (request, reply) => {
    const name = (request.params as { '*': string })['*']
    if (options.assets.get(`/assets/${name}`) !== undefined && options.hotPath(request.raw, reply.raw)) {
      reply.hijack()
      return reply
    }
    const streamed = ASSET_NAME.test(name) ? options.assets.streamedFiles.get(name) : undefined
    if (streamed === undefined) return reply.callNotFound()
    if (streamed.expected !== undefined && !(await stillTheCheckedFile(join(streamed.folder, streamed.file), streamed.expected))) {
      // Its name carries the start's hash and is cached immutable: other bytes must never be served under it.
      request.log.error({ asset: name }, 'an operator\'s file changed on disk since the edge started; not served until the edge is restarted')
      return reply.callNotFound()
    }
    return reply
      .headers({ ...STATIC_SECURITY_HEADERS, ...streamed.headers })
      .sendFile(streamed.file, streamed.folder, { cacheControl: true, maxAge: '365d', immutable: true, acceptRanges: true, etag: true })
  })
}
