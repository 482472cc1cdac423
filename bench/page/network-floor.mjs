// The network's floor for a visit (bench/page-ready.mjs): how soon the
// browser can have received the bytes that gate the form being usable, on the
// same throttled link, with nothing else in the way. Two halves:
//
// - gatingRequests reads, in the page just visited, which requests gated its
//   form: the document, each subresource Chromium marks render-blocking
//   (PerformanceResourceTiming.renderBlockingStatus), and, where the form
//   became usable only by hydrating (it does not post without scripts), every
//   script too; only those started before `usable` and fetched from the
//   network (a repeat visit's assets come from the HTTP cache: they cost no
//   transfer). Each with its wire size (headers and body as they came,
//   content-encoded or not, from the DevTools protocol) and where the document
//   names it (its share of the way through the document's bytes).
// - The floor server replays them: a document of the same wire size that
//   names stand-ins for the same subresources at the same share of its bytes
//   (so that Chromium's preload scanner finds them as early, and opens or
//   reuses connections as it did), each stand-in of the same wire size. The
//   floor is the latest responseEnd among them, in ms since navigation start,
//   the same clock as the milestones.
//
// The replay runs in the same browser under the same throttling, in a context
// of its own, first visit then repeat as the page's were, on a server that
// keeps connections alive as long as the edge does (server/edge/server.ts
// DEFAULT_TIMEOUTS.keepAliveMs).
import { createServer } from 'node:http'
import { portOf } from '../tools.mjs'

/** @import { Page, CDPSession } from 'playwright-core' */

/** The edge's keep-alive (server/edge/server.ts DEFAULT_TIMEOUTS), so that the replay reuses connections as the page did. */
const EDGE_KEEP_ALIVE_MS = 72_000

/**
 * One request that gated the form: what it was, how many bytes it took on
 * the wire, and how far through the document's bytes the document names it.
 * @typedef {{ kind: 'document' | 'stylesheet' | 'script', headerBytes: number, bodyBytes: number, at: number }} GatingRequest
 */

/** @typedef {{ headerBytes: number, bodyBytes: number }} WireSize */

/**
 * Starts recording a page's requests (their wire sizes by URL, and which one
 * was its document) before it navigates.
 * @param {CDPSession} cdp a session with Network enabled
 */
export function recordRequests (cdp) {
  /** @type {Map<string, string>} */
  const urlOf = new Map()
  /** @type {Map<string, number>} */
  const headerBytesOf = new Map()
  const recorded = {
    /** @type {Map<string, WireSize>} */
    sizes: new Map(),
    /** @type {{ requestId: string, url: string } | null} */
    document: null
  }
  cdp.on('Network.requestWillBeSent', (event) => {
    urlOf.set(event.requestId, event.request.url)
    if (event.type === 'Document' && recorded.document === null) recorded.document = { requestId: event.requestId, url: event.request.url }
  })
  cdp.on('Network.responseReceivedExtraInfo', (event) => { headerBytesOf.set(event.requestId, event.headersText?.length ?? 0) })
  cdp.on('Network.loadingFinished', (event) => {
    const url = urlOf.get(event.requestId)
    if (url === undefined) return
    const headerBytes = headerBytesOf.get(event.requestId) ?? 0
    recorded.sizes.set(url, { headerBytes, bodyBytes: Math.max(0, event.encodedDataLength - headerBytes) })
  })
  return recorded
}

/**
 * The requests that gated the form in `page`, whose milestones were just taken (see the header).
 * @param {Page} page
 * @param {CDPSession} cdp the session recordRequests listened on
 * @param {ReturnType<typeof recordRequests>} recorded
 * @param {{ usable: number, usableWithoutScripts: boolean }} milestones
 * @returns {Promise<GatingRequest[]>}
 */
export async function gatingRequests (page, cdp, recorded, { usable, usableWithoutScripts }) {
  const document = recorded.document
  if (document === null) throw new Error('bench:page: the visit made no document request')
  // The document as it came (the DOM is the scripts' by now).
  const { body, base64Encoded } = await cdp.send('Network.getResponseBody', { requestId: document.requestId })
  const html = base64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body
  const resources = await page.evaluate(({ before, withScripts }) => {
    const entries = /** @type {Array<PerformanceResourceTiming & { renderBlockingStatus?: string }>} */ (performance.getEntriesByType('resource'))
    const isStylesheet = (/** @type {string} */ url) => /\.css(\?|$)/.test(new URL(url).pathname)
    return entries
      // transferSize 0: from the HTTP cache, no bytes on the wire.
      .filter((entry) => entry.startTime < before && entry.transferSize > 0 &&
        (entry.renderBlockingStatus === 'blocking' || (withScripts && (entry.initiatorType === 'script' || /\.m?js$/.test(new URL(entry.name).pathname)))))
      .map((entry) => ({ url: entry.name, kind: isStylesheet(entry.name) ? 'stylesheet' : 'script' }))
  }, { before: usable, withScripts: !usableWithoutScripts })
  const sizeOf = (/** @type {string} */ url) => {
    const size = recorded.sizes.get(url)
    if (size === undefined) throw new Error(`bench:page: no wire size recorded for ${url}`)
    return size
  }
  /** @type {GatingRequest[]} */
  const gating = [{ kind: 'document', ...sizeOf(document.url), at: 0 }]
  for (const resource of resources) {
    const index = html.indexOf(new URL(resource.url).pathname)
    // Not named by the document (an import of an import): found once the document is in, at its end.
    gating.push({ kind: /** @type {'stylesheet' | 'script'} */ (resource.kind), ...sizeOf(resource.url), at: index === -1 ? 1 : index / html.length })
  }
  return gating
}

/**
 * A response head padded to `headerBytes` on the wire: the status line, the
 * headers Node adds for a kept-alive HTTP/1.1 answer, and a filler header.
 * @param {string} contentType
 * @param {number} bodyBytes
 * @param {number} headerBytes
 */
function paddedHeaders (contentType, bodyBytes, headerBytes) {
  const headers = { 'content-type': contentType, 'content-length': String(bodyBytes), 'cache-control': 'no-store' }
  const lines = ['HTTP/1.1 200 OK', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), 'Connection: keep-alive',
    `Keep-Alive: timeout=${EDGE_KEEP_ALIVE_MS / 1000}`, 'x-floor-pad: ']
  const written = lines.reduce((sum, line) => sum + line.length + 2, 2)
  return { ...headers, 'x-floor-pad': 'x'.repeat(Math.max(1, headerBytes - written)) }
}

/**
 * The floor's document: `bodyBytes` bytes of HTML naming each subresource
 * stand-in at its share of the way through, the rest filler in comments.
 * @param {number} bodyBytes
 * @param {Array<{ href: string, kind: 'stylesheet' | 'script', at: number }>} references
 */
function floorDocument (bodyBytes, references) {
  const tag = (/** @type {{ href: string, kind: string }} */ reference) =>
    reference.kind === 'stylesheet' ? `<link rel="stylesheet" href="${reference.href}">` : `<script src="${reference.href}"></script>`
  let html = '<!doctype html><html><head>'
  const filler = (/** @type {number} */ upTo) => {
    const room = upTo - html.length
    if (room >= 7) html += `<!--${'x'.repeat(room - 7)}-->`
  }
  for (const reference of [...references].sort((a, b) => a.at - b.at)) {
    filler(Math.floor(reference.at * bodyBytes))
    html += tag(reference)
  }
  filler(bodyBytes)
  // A document smaller than its tags would be is as large as they make it (a few bytes over; never seen with real pages).
  return Buffer.from(html)
}

/** A server that replays visits' gating requests (see the header); `stop` closes it. */
export async function startFloorServer () {
  /** @type {Map<string, { headers: Record<string, string>, body: Buffer }>} */
  const answers = new Map()
  const server = createServer((request, response) => {
    const answer = answers.get(request.url ?? '')
    if (answer === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, answer.headers).end(answer.body)
  })
  server.keepAliveTimeout = EDGE_KEEP_ALIVE_MS
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${portOf(server)}`
  let replays = 0

  return {
    /**
     * Loads a replay of `gating` in `page` (throttled by the caller) and resolves with the floor, in ms since navigation start.
     * @param {Page} page
     * @param {GatingRequest[]} gating
     */
    async measure (page, gating) {
      const prefix = `/floor/${replays++}`
      const [document, ...subresources] = gating
      if (document === undefined || document.kind !== 'document') throw new Error('bench:page: a replay starts from its document')
      const references = subresources.map((request, index) => {
        const href = `${prefix}/${index}.${request.kind === 'stylesheet' ? 'css' : 'js'}`
        const type = request.kind === 'stylesheet' ? 'text/css' : 'text/javascript'
        // A comment of the right length: it parses, and renders or runs nothing.
        const body = Buffer.from(`/*${'x'.repeat(Math.max(0, request.bodyBytes - 4))}*/`)
        answers.set(href, { headers: paddedHeaders(type, body.length, request.headerBytes), body })
        return { href, kind: /** @type {'stylesheet' | 'script'} */ (request.kind), at: request.at }
      })
      const body = floorDocument(document.bodyBytes, references)
      answers.set(`${prefix}/`, { headers: paddedHeaders('text/html; charset=utf-8', body.length, document.headerBytes), body })
      await page.goto(`${base}${prefix}/`, { waitUntil: 'load' })
      return await page.evaluate(() => Math.round(Math.max(
        ...[...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
          .map((entry) => /** @type {PerformanceResourceTiming} */ (entry).responseEnd))))
    },
    async stop () {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
