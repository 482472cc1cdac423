import { createElement, lazy, type ComponentType } from 'react'

/** How many times a failed chunk is asked for again, and the pause before each, before the failure is the caller's. */
export const CHUNK_RETRIES = 2
export const CHUNK_RETRY_PAUSE_MS = 400

/**
 * A lazily loaded chunk, through which every `import()` of the page goes: a
 * failed load (a dropped connection, a deploy in between) is tried again
 * CHUNK_RETRIES times after a short pause, and only then rejects.
 *
 * The retry repeats the same `import()`. The HTML standard once kept a failed
 * module fetch in the module map for good, so a retry failed at once; it now
 * keeps only successes (whatwg/html pull request 10327), and Chromium 156
 * fetches again (test/e2e/page/lazy-chunk-failure.test.ts aborts the request
 * once). A cache-busting query (`import(url + '?retry=1')`) is not open to
 * us: esbuild writes each chunk's hashed address as a fixed string inside the
 * chunk that imports it, so the page's code never holds the address, and a
 * second address would make a second instance of the module. An engine that
 * still keeps the failure shows LazyPart's message at once instead, and a
 * reload (which starts a new module map) loads the part.
 */
export async function loadChunk<T> (load: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load()
    } catch (error) {
      if (attempt === CHUNK_RETRIES) throw error
      await new Promise((resolve) => setTimeout(resolve, CHUNK_RETRY_PAUSE_MS))
    }
  }
}

/** Lazy components whose chunk failed, each with the way to ask for it afresh (React.lazy keeps a rejection for good). */
const failed = new Set<() => void>()

/** Each lazy component's load, for preloadChunk. */
const loads = new WeakMap<object, () => Promise<unknown>>()

/**
 * React.lazy through loadChunk, for a part shown inside LazyPart
 * (client/components/LazyPart.tsx): when the chunk fails for good, LazyPart's
 * button calls retryFailedChunks, and the part loads again on the next render.
 * Once preloadChunk has loaded it, the part renders at once, without suspending.
 */
export function lazyChunk<P extends object> (load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  let loaded: { default: ComponentType<P> } | undefined
  const loadOnce = async () => (loaded = await loadChunk(load))
  // React.lazy takes a module that is here already without suspending when its thenable calls back at once.
  const fresh = (): ComponentType<P> => lazy(() => loaded !== undefined
    ? { then: (resolve: (module: { default: ComponentType<P> }) => void) => resolve(loaded!) } as Promise<{ default: ComponentType<P> }>
    : loadOnce().catch((error: unknown) => {
      failed.add(() => { current = fresh() })
      throw error
    }))
  let current = fresh()
  function LazyChunk (props: P) {
    return createElement(current, props)
  }
  loads.set(LazyChunk, loadOnce)
  return LazyChunk
}

/**
 * Loads a lazy component's chunk, so that its first render does not suspend: the page hydrates its
 * opening view only then (client/start-page.tsx). Resolves with whether it is here (false once its
 * retries failed), never rejects. A component that is not lazy (the server renderer's,
 * client/server-render.tsx) is here already.
 */
export async function preloadChunk (component: object): Promise<boolean> {
  const load = loads.get(component)
  if (load === undefined) return true
  return await load().then(() => true, () => false)
}

/** Asks again for every lazy component whose chunk failed. */
export function retryFailedChunks (): void {
  for (const again of failed) again()
  failed.clear()
}
