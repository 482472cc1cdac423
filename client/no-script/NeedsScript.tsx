import { createContext, useContext, type ReactNode } from 'react'

/**
 * What stands in, without scripts, for what needs them: notes and the SSO
 * form (client/no-script/no-script-content.tsx). Only the server renderer
 * provides it: the browser never shows a `<noscript>`'s content while its
 * scripts run, so the page's bundle does not carry it.
 */
export interface NoScriptContent {
  readonly note: (what: 'google' | 'passkey' | 'localNetwork') => ReactNode
  /** The SSO start as a form, behind a disclosure labelled as the button it stands for. */
  readonly ssoForm: (label: string, email: string) => ReactNode
  /** The emailed code's request as a form (`email-code-request`), behind a disclosure labelled as the button it stands for. */
  readonly emailCodeForm: (label: string, email: string) => ReactNode
  /** A link to the login view, keeping the address's other parameters. */
  readonly loginLink: (label: string) => ReactNode
}

/** Provided by the server renderer only (client/no-script/no-script-content.tsx). */
export const NoScriptContext = createContext<NoScriptContent | null>(null)

/**
 * What works only with the page's scripts (Google, passkeys, local-network
 * mode, the copy button): shown as it is while the scripts load and once
 * they run, so nothing moves at hydration; where scripting is off, hidden by
 * the stylesheet (`@media (scripting: none)`) with `fallback` (a note, a
 * form) in its place, in a `<noscript>`. React leaves a `<noscript>`'s
 * content alone when it hydrates, so the browser renders it empty.
 */
export function NeedsScript ({ fallback, children }: { fallback?: (content: NoScriptContent) => ReactNode, children: ReactNode }) {
  const content = useContext(NoScriptContext)
  return (
    <>
      <div className='needs-script'>{children}</div>
      {fallback !== undefined && <noscript>{content === null ? null : fallback(content)}</noscript>}
    </>
  )
}
