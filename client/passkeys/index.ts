/**
 * The passkey chunk: everything passkeys need beyond the first load, loaded
 * with import() when the login view opens on a page that offers passkeys.
 */
export { createPasskey, signInWithPasskey, upgradeAfterPassword } from './passkey-ceremonies.js'
export { finishPasskeySignIn } from './finish-sign-in.js'
export { rememberNotNow } from './not-now.js'
export { passkeyTimings } from './passkey-timing.js'
