import type { MessageKey } from '../../common/languages/message-catalogue.js'
import type { NoScriptContent } from './NeedsScript.js'
import { useMessages } from '../languages/messages.js'
import { SsoFallback } from '../sso/SsoFallback.js'
import { EmailCodeFallback } from '../email-codes/EmailCodeFallback.js'
import { ViewLink } from '../page/ViewLink.js'

/** What shows in place of what needs scripts when they are off (docs/page.md, "Before its JavaScript"). */
const NOTES: Readonly<Record<Parameters<NoScriptContent['note']>[0], MessageKey>> = {
  google: 'noScript.google',
  passkey: 'noScript.passkey',
  localNetwork: 'noScript.localNetwork'
}

function ScriptNote ({ what }: { what: keyof typeof NOTES }) {
  return <p className='script-note'>{useMessages().text(NOTES[what])}</p>
}

/** The server renderer's NoScriptContext (client/server-render.tsx); never in the page's bundle. */
export const NO_SCRIPT_CONTENT: NoScriptContent = {
  note: (what) => <ScriptNote what={what} />,
  ssoForm: (label, email) => <SsoFallback label={label} email={email} />,
  emailCodeForm: (label, email) => <EmailCodeFallback label={label} email={email} />,
  // A plain link: without scripts its click handler never runs.
  loginLink: (label) => <p className='links'><ViewLink view='login' onShow={() => undefined}>{label}</ViewLink></p>
}
