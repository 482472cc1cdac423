import type { ReactNode } from 'react'
import type { View } from '../lib/page-params.js'

/** The address of another view: the same path and parameters, another `view`. */
export function viewHref (view: View): string {
  const params = new URLSearchParams(window.location.search)
  if (view === 'login') params.delete('view')
  else params.set('view', view)
  const query = params.toString()
  return `${window.location.pathname}${query === '' ? '' : `?${query}`}`
}

/**
 * A real link to another view (it opens in a new tab, and copies as a URL),
 * that switches in place on a plain click.
 */
export function ViewLink ({ view, onShow, children }: { view: View, onShow: (view: View) => void, children: ReactNode }) {
  return (
    <a
      href={viewHref(view)}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
        event.preventDefault()
        onShow(view)
      }}
    >
      {children}
    </a>
  )
}
