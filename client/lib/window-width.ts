import { useSyncExternalStore } from 'react'
import { MOBILE_BREAKPOINT_PX, STACKED_BREAKPOINT_PX } from './constants.js'

function subscribe (listener: () => void): () => void {
  window.addEventListener('resize', listener)
  return () => window.removeEventListener('resize', listener)
}

const width = (): number => window.innerWidth

/** The window's width, following resizes. */
export function useWindowWidth (): number {
  return useSyncExternalStore(subscribe, width, width)
}

/** The layout for a window width: narrow below 512 px, stacked below 1024 px, else wide (spec §2). */
export type LayoutWidth = 'narrow' | 'stacked' | 'wide'

export function layoutFor (windowWidth: number): LayoutWidth {
  if (windowWidth < MOBILE_BREAKPOINT_PX) return 'narrow'
  if (windowWidth < STACKED_BREAKPOINT_PX) return 'stacked'
  return 'wide'
}
