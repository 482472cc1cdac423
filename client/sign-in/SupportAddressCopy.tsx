import { CopyButton } from '../components/CopyButton.js'
import { useMessages } from '../languages/messages.js'

/**
 * The login view's button that copies the support address: a chunk of its
 * own (LoginView's loginViewParts), since it needs scripts and its tooltip's
 * code is not the first load's. Only ever imported with import(), so that
 * the build keeps the first load in one chunk (build/first-load-chunk.mjs).
 */
export default function SupportAddressCopy ({ address }: { address: string }) {
  return <CopyButton text={address} label={useMessages().text('login.copySupportAddress')} />
}
