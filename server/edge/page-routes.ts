import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import type { HotPathHandler } from './hot-path.js'
import { STATIC_SECURITY_HEADERS } from './security-headers.js'
import type { AssetStore } from './static-files.js'

export interface PageRoutesOptions {
  readonly hotPath: HotPathHandler
  readonly assets: AssetStore
  readonly assetsDir: string
}

/** The build's names, and the operator's under brand/ (server/edge/brand/brand-assets.ts). */
const ASSET_NAME = /^(brand\/)?\w[\w.-]*$/

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
    if (options.hotPath(request.raw, reply.raw)) reply.hijack()
    else reply.callNotFound()
  })

  app.get('/assets/*', { helmet: false }, async (request, reply) => {
    const name = (request.params as { '*': string })['*']
    if (options.assets.get(`/assets/${name}`) !== undefined && options.hotPath(request.raw, reply.raw)) {
      reply.hijack()
      return reply
    }
    const streamed = ASSET_NAME.test(name) ? options.assets.streamedFiles.get(name) : undefined
    if (streamed === undefined) return reply.callNotFound()
    return reply
      .headers({ ...STATIC_SECURITY_HEADERS, ...streamed.headers })
      .sendFile(streamed.file, streamed.folder, { cacheControl: true, maxAge: '365d', immutable: true, acceptRanges: true, etag: true })
  })
}
