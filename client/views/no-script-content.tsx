import { NO_SCRIPT_TEXTS } from '../../common/no-script-texts.js'
import type { NoScriptContent } from '../components/NeedsScript.js'
import { SsoFallback } from './SsoFallback.js'
import { ViewLink } from './ViewLink.js'

/** What shows in place of what needs scripts when they are off (docs/page.md, "Before its JavaScript"). */
const NOTES = {
  google: 'Signing in with Google needs JavaScript.',
  passkey: 'Signing in with a passkey needs JavaScript.',
  localNetwork: NO_SCRIPT_TEXTS.LOCAL_NETWORK
} as const

/** The server renderer's NoScriptContext (client/server-render.tsx); never in the page's bundle. */
export const NO_SCRIPT_CONTENT: NoScriptContent = {
  note: (what) => <p className='script-note'>{NOTES[what]}</p>,
  ssoForm: (label, email) => <SsoFallback label={label} email={email} />,
  // A plain link: without scripts its click handler never runs.
  loginLink: (label) => <p className='links'><ViewLink view='login' onShow={() => undefined}>{label}</ViewLink></p>
}
