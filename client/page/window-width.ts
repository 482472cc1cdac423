import { useSyncExternalStore } from 'react'

function subscribe (listener: () => void): () => void {
  window.addEventListener('resize', listener)
  return () => window.removeEventListener('resize', listener)
}

const width = (): number => window.innerWidth
// The server knows no window: null, on the server and while the browser hydrates.
const noWidth = (): null => null

/**
 * The window's width, following resizes; null on the server and in the
 * first render of a hydration. The layout itself is the stylesheet's (media
 * queries at the same breakpoints), so that the server's markup is right at
 * every width; only what must choose in script (the background video's
 * variant) reads this.
 */
export function useWindowWidth (): number | null {
  return useSyncExternalStore(subscribe, width, noWidth)
}
