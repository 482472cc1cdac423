import type { ReactNode } from 'react'
import { viewLinkHref } from '../../common/page/page-render.js'
import { useAddressSearch } from './address-bar.js'
import type { View } from './page-params.js'

/**
 * A real link to another view (it opens in a new tab, and copies as a URL),
 * that switches in place on a plain click.
 */
export function ViewLink ({ view, onShow, children }: { view: View, onShow: (view: View) => void, children: ReactNode }) {
  // The page is served at `/` only; the href's order of parameters is viewLinkHref's (the server renders it alike).
  const href = viewLinkHref(useAddressSearch(), view)
  return (
    <a
      href={href}
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
