/**
 * Texts about what needs scripts that both the page and the edge show: the
 * page's note in place of local-network login (client/views/no-script-content.tsx)
 * and the edge's answer to such a login posted without scripts
 * (server/edge/form-posts/no-script-messages.ts). The page's first load never
 * imports this: only the server renderer does.
 */
export const NO_SCRIPT_TEXTS = Object.freeze({
  LOCAL_NETWORK: 'Signing in on the local network needs JavaScript. Please turn it on and reload the page.'
})
