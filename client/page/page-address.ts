import { createContext, useContext } from 'react'

/**
 * The page's address as the server saw it. The server renderer provides it
 * (client/server-render.tsx): there is no `window` there, and the first
 * render in the browser must read the same values as the server did. In the
 * browser nothing provides it, and the address bar is read.
 */
export interface PageAddress {
  /** The query with its `?`, as `location.search` has it (empty when there is none). */
  readonly search: string
  /** The host name as the edge states it (lower case, no port). */
  readonly hostname: string
}

/** The server's address; nothing provides it in the browser. */
export const PageAddressContext = createContext<PageAddress | null>(null)

/** The address the server rendered, or null in the browser. */
export function useServerAddress (): PageAddress | null {
  return useContext(PageAddressContext)
}

/** The page's host name: the server's in its render, the address bar's in the browser. */
export function usePageHostname (): string {
  return useServerAddress()?.hostname ?? window.location.hostname
}
