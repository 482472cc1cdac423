import { useSyncExternalStore } from 'react'
import { useServerAddress } from './page-address.js'

/**
 * The address bar as the source of truth for the view and the parameters:
 * views are switched with the History API so that the back button works,
 * and every part of the page re-renders from the new address.
 */

const listeners = new Set<() => void>()

function subscribe (listener: () => void): () => void {
  listeners.add(listener)
  window.addEventListener('popstate', listener)
  return () => {
    listeners.delete(listener)
    window.removeEventListener('popstate', listener)
  }
}

const currentSearch = (): string => window.location.search

/**
 * The current query string; re-renders when it changes (navigation or
 * back/forward). On the server, and while the browser hydrates, the server's.
 */
export function useAddressSearch (): string {
  const server = useServerAddress()
  return useSyncExternalStore(subscribe, currentSearch, server === null ? currentSearch : () => server.search)
}

/** A query (with or without `?`) with `view` set to another view, every other parameter kept: `?…`, or '' when empty. */
export function searchForView (search: string, view: string): string {
  const params = new URLSearchParams(search)
  if (view === 'login') params.delete('view')
  else params.set('view', view)
  const query = params.toString()
  return query === '' ? '' : `?${query}`
}

/**
 * Rewrites the query string on the same path, keeping the hash. A new entry
 * is pushed (so back returns to the previous view) unless `replace` is set.
 */
export function updateSearchParams (change: (params: URLSearchParams) => void, options: { replace?: boolean } = {}): void {
  const url = new URL(window.location.href)
  change(url.searchParams)
  const next = `${url.pathname}${url.search}${url.hash}`
  if (options.replace === true) window.history.replaceState(window.history.state, '', next)
  else window.history.pushState(null, '', next)
  for (const listener of listeners) listener()
}

/** Switches the view, keeping every other parameter. */
export function showView (view: string, options: { replace?: boolean } = {}): void {
  updateSearchParams((params) => {
    if (view === 'login') params.delete('view')
    else params.set('view', view)
  }, options)
}
