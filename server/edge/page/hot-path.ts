import type { IncomingMessage, ServerResponse } from 'node:http'
import { FORM_FLASH_LOOPBACK_COOKIE } from '../no-script/form-flash.js'
import { edgeViewOf } from './edge-views.js'
import type { PageAnswer } from './page-answer.js'
import { negotiateEncoding, type AssetStore } from './static-files.js'

export interface HotPathOptions {
  /** The page with its view rendered (page-answer.ts). */
  readonly pages: PageAnswer
  readonly assets: AssetStore
  /**
   * The page after a form post's 303, for a GET that carries the flash
   * cookie (server/edge/no-script/form-flash.ts); false when the flash is not valid.
   */
  readonly flashedPage?: (request: IncomingMessage, response: ServerResponse, query: string) => boolean
}

/** Answers a request and says what it served (the metrics' route label), or returns false to leave it to Fastify. */
export type HotPathHandler = (request: IncomingMessage, response: ServerResponse) => 'page' | 'assets' | false

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i

/**
 * The path and query of a request target. A target in absolute form
 * (`GET http://host/path`, which HTTP/1.1 servers must accept) is read as its
 * path, as Fastify's router reads it.
 */
function originForm (target: string): string {
  if (target.charCodeAt(0) === 0x2f) return target
  const authority = ABSOLUTE_FORM.exec(target)
  if (authority === null) return target
  const rest = target.slice(authority[0].length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

/**
 * The two requests that make up nearly all traffic, the page and its hashed
 * assets, answered straight from memory before Fastify's router and hooks run.
 * Everything else, and anything unusual about these two, goes to Fastify.
 * The headers are helmet's, recorded once (server/edge/http/security-headers.ts); the page
 * comes with its view rendered (page-answer.ts).
 */
export function createHotPath (options: HotPathOptions): HotPathHandler {
  const { pages, assets, flashedPage } = options

  return function hotPath (request, response) {
    const method = request.method
    if (method !== 'GET' && method !== 'HEAD') return false
    const url = originForm(request.url ?? '')
    const queryStart = url.indexOf('?')
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart)

    if (pathname === '/') {
      const query = queryStart === -1 ? '' : url.slice(queryStart + 1)
      // The views the edge answers itself (edge-views.ts) are Fastify's.
      if (edgeViewOf(query) !== null) return false
      // The cheapest check first: only the GET after a form post carries the flash (its name with or without `__Host-`).
      const cookie = request.headers.cookie
      if (flashedPage !== undefined && cookie !== undefined && cookie.includes(FORM_FLASH_LOOPBACK_COOKIE) && flashedPage(request, response, query)) return 'page'
      pages.page(request, response, query)
      return 'page'
    }

    const asset = assets.get(pathname)
    if (asset === undefined) return false
    const chosen = asset.variants[negotiateEncoding(request.headers['accept-encoding'], asset.variants)] ?? asset.variants.identity
    const ifNoneMatch = request.headers['if-none-match']
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === chosen.etag)) {
      response.writeHead(304, chosen.notModifiedHeaders as string[])
      response.end()
      return 'assets'
    }
    response.writeHead(200, chosen.headers as string[])
    response.end(method === 'HEAD' ? undefined : chosen.body)
    return 'assets'
  }
}
