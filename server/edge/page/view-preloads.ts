import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PageView } from '../../../common/page/page-query.js'

/** Written by build/client.mjs beside the page template: each view's chunks, by URL. */
export const VIEW_PRELOADS_FILE = 'view-preloads.json'

/** Where the template takes the rendered view's preloads (build/client.mjs puts it among the entry's). */
export const VIEW_PRELOAD_SLOT = '<!--THRESHOLD:VIEW-PRELOAD-->'

const VIEWS: readonly PageView[] = ['login', 'register', 'resetPassword', 'setPassword', 'account']
/** A chunk's URL as the build names it: hashed, under /assets/. */
const CHUNK_URL = /^\/assets\/[\w-]+\.js$/

/** Each view's `<link rel="modulepreload">` elements, as UTF-8, ready to copy into a page. */
export type ViewPreloads = Readonly<Record<PageView, Buffer>>

/**
 * The chunks each view's page hydrates from, beyond the entry's (docs/page.md, "Before its
 * JavaScript"), as the markup that names them for the browser to fetch beside the entry: read
 * once at start from the build's file in `publicDir`, each view's cut once, so that a page view
 * only looks its view up. A file that is not the build's stops the start.
 */
export async function loadViewPreloads (publicDir: string): Promise<ViewPreloads> {
  const path = join(publicDir, VIEW_PRELOADS_FILE)
  const parsed: unknown = JSON.parse(await readFile(path, 'utf8'))
  const preloads: Partial<Record<PageView, Buffer>> = {}
  for (const view of VIEWS) {
    const urls: unknown = (parsed as Record<string, unknown> | null)?.[view]
    if (!Array.isArray(urls) || !urls.every((url): url is string => typeof url === 'string' && CHUNK_URL.test(url))) {
      throw new Error(`${path} names no chunks for the ${view} view, or names one outside /assets/; run the build again`)
    }
    preloads[view] = Buffer.from(urls.map((url) => `<link rel="modulepreload" href="${url}">`).join(''))
  }
  return preloads as ViewPreloads
}

/** No preloads: a template without the slot (the tests' stand-in for a build). */
export const NO_VIEW_PRELOADS: ViewPreloads = Object.freeze(Object.fromEntries(VIEWS.map((view) => [view, Buffer.alloc(0)])) as Record<PageView, Buffer>)
