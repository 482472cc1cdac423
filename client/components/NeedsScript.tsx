import type { ReactNode } from 'react'

/**
 * What works only with the page's scripts (Google, passkeys, local-network
 * mode): shown as it is while the scripts load and once they run, so nothing
 * moves at hydration; where scripting is off, hidden by the stylesheet
 * (`@media (scripting: none)`) with `note`, or `fallback`, in its place.
 * React renders a `<noscript>`'s content on the server only: in the browser,
 * with scripts on, it stays inert text.
 */
export function NeedsScript ({ note, fallback, children }: { note?: string, fallback?: ReactNode, children: ReactNode }) {
  return (
    <>
      <div className='needs-script'>{children}</div>
      {(note !== undefined || fallback !== undefined) && (
        <noscript>{fallback ?? <p className='script-note'>{note}</p>}</noscript>
      )}
    </>
  )
}
